import ArgumentParser
import FlowHostAudit
import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostNotifications
import FlowHostPOSIX
import FlowHostServices
import FlowHostStore
import FlowJSON
import Glibc
import JSONRPC

/// `flowhost admin`: approval notifications: send one, list them.
extension Admin {
    struct Notify: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a user a notification their devices can answer once.")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        @Option(help: "The subject line.") var subject: String
        @Option(help: "The message.") var message: String
        @Option(help: "An action, LABEL=VALUE or LABEL=VALUE:AUTHLEVEL (repeatable; AUTHLEVEL 0 needs no step-up).")
        var action: [String] = []
        @Option(help: "Seconds until it expires.") var expiresIn: Int64 = 600

        func run() throws {
            let actions = try action.map { text -> NotificationAction in
                guard let equals = text.firstIndex(of: "=") else { throw ValidationError("--action \(text): LABEL=VALUE[:AUTHLEVEL]") }
                let label = String(text[..<equals])
                let rest = text[text.index(after: equals)...]
                let parts = rest.split(separator: ":", maxSplits: 1).map(String.init)
                return NotificationAction(label: label, action: parts.first ?? "", authLevel: parts.count > 1 ? parts[1] : "0")
            }
            try adminRun {
                // The context rings the feed: hosts where the user is logged in learn at once.
                let service = try options.domains().notifications()
                do {
                    let uuid = try service.create(
                        userID: userID, subject: subject, message: message, actions: actions, expiresInSeconds: expiresIn)
                    options.emit(["userID": .string(userID), "notification_uuid": .string(uuid)]) { "notification \(uuid) sent to \(userID)" }
                } catch let error as NotificationError {
                    printError("flowhost admin: \(error)")
                    throw ExitCode(1)
                }
            }
        }
    }

    struct Notifications: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a user's notifications, newest first, in the SDK's history shape.")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String

        func run() throws {
            try adminRun {
                let service = NotificationService(try options.domains().context)
                let now = DomainContext.now()
                let items = try service.history(userID: userID, startIndex: 1, recordCount: 0).map { NotificationShapes.historyItem($0, now: now) }
                options.emit(.array(items)) {
                    TerminalText(lines: items.map { "\($0["notification_uuid"]!.stringValue!)  \($0["status"]!.stringValue!)  \($0["action_performed"]!.stringValue!)" })
                }
            }
        }
    }
}
