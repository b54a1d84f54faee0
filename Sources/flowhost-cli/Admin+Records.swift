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

/// `flowhost admin`: the delivery outbox and the audit.
extension Admin {
    struct Outbox: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the codes waiting for delivery (opened with the outbox key).")
        @OptionGroup var options: AdminOptions
        @Flag(help: "Include delivered messages.") var all = false
        @Flag(help: "Mark the shown messages delivered.") var markDelivered = false

        func run() throws {
            try adminRun {
                let store = try options.store()
                let outbox = try options.storage.outbox()
                let messages = try store.read { try $0.outbox(includeDelivered: all) }
                let opened = JSON.array()
                for message in messages {
                    let body = try outbox.open(message)
                    body["id"] = .int(Int(message.id ?? 0))
                    body["kind"] = .string(message.kind)
                    body["createdAt"] = .int(Int(message.createdAt))
                    body["attempts"] = .int(message.attempts)
                    if let error = message.lastError { body["lastError"] = .string(error) }
                    if let failed = message.failedAt { body["failedAt"] = .int(Int(failed)) }
                    if let delivered = message.deliveredAt { body["deliveredAt"] = .int(Int(delivered)) }
                    opened.append(body)
                }
                if markDelivered {
                    let now = DomainContext.now()
                    try store.write { tx in for message in messages { try tx.markDelivered(outboxID: message.id!, at: now) } }
                }
                options.emit(opened) {
                    TerminalText(lines: opened.elements.map {
                        if $0["kind"]?.stringValue == OutboxDelivery.pushKind {
                            // A push for push.command: its device and notification (the token is not in it).
                            return "#\($0["id"]!.intValue!) push: \($0["deviceID"]?.stringValue ?? "") notification \($0["notificationID"]?.stringValue ?? "")"
                        }
                        guard let code = $0["activationCode"]?.stringValue else {
                            // An event for events.command: its audit row.
                            return "#\($0["id"]!.intValue!) event: seq \($0["seq"]?.intValue ?? 0) \($0["action"]?.stringValue ?? "")"
                        }
                        return "#\($0["id"]!.intValue!) \($0["userID"]!.stringValue!): code \(code) key \($0["verificationKey"]!.stringValue!)"
                    })
                }
            }
        }
    }

    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the audit log, newest first; or stream it, oldest first, from a cursor (--jsonl).")
        @OptionGroup var options: AdminOptions
        @Option(help: "Only this user's entries.") var user: String?
        @Option(help: "At most this many entries.") var limit = 100
        @Flag(help: "Show the hourly counts of events that change nothing (unknown users, resets, refusals) instead.")
        var counts = false
        @Flag(help: "Every row, oldest first, one JSON object per line, each with its seq (the cursor).")
        var jsonl = false
        @Option(help: "With --jsonl: only the rows after this seq (the last one a reader has).")
        var after: Int64?
        @Flag(help: "With --jsonl: keep printing rows as they are written.")
        var follow = false

        func validate() throws {
            if (follow || after != nil) && !jsonl { throw ValidationError("--follow and --after go with --jsonl") }
            if jsonl && (counts || user != nil || options.json) { throw ValidationError("--jsonl streams every row: it takes no --counts, --user or --json") }
            if let after, after < 0 { throw ValidationError("--after must be a seq (0 or more)") }
        }

        func run() throws {
            if counts { return try runCounts() }
            if jsonl {
                return try adminRun {
                    try AuditStream(store: options.store(), location: options.storage.location, after: after ?? 0, follow: follow).run()
                }
            }
            try adminRun {
                let entries = try options.store().read { try $0.auditEntries(userID: user, limit: limit) }
                let value = JSON.array(
                    entries.map { entry in
                        let item: JSON = [
                            "id": .int(Int(entry.id ?? 0)), "at": .string(isoTime(entry.at)),
                            "userID": .optional(entry.userID, JSON.string), "deviceID": .optional(entry.deviceID, JSON.string),
                            "action": .string(entry.action), "outcome": .string(entry.outcome),
                        ]
                        if let detail = entry.detail, let parsed = try? JSON.parse(detail) { item["detail"] = parsed }
                        return item
                    })
                options.emit(value) {
                    TerminalText(lines: entries.map { "\(isoTime($0.at))  \($0.userID ?? "-")  \($0.deviceID ?? "-")  \($0.action)  \($0.outcome)  \($0.detail ?? "")" })
                }
            }
        }
    }
}

extension Admin.Audit {
    func runCounts() throws {
        try adminRun {
            let rows = try options.store().read { try $0.auditCounts(userID: user, limit: limit) }
            let value = JSON.array(
                rows.map {
                    [
                        "hour": .string(isoTime($0.hour)), "userID": $0.userID.isEmpty ? .null : .string($0.userID),
                        "action": .string($0.action), "outcome": .string($0.outcome), "count": .int(Int($0.count)),
                        "lastAt": .string(isoTime($0.lastAt)),
                    ]
                })
            options.emit(value) {
                TerminalText(lines: rows.map { "\(isoTime($0.hour))  \($0.userID.isEmpty ? "-" : $0.userID)  \($0.action)  \($0.outcome)  ×\($0.count)" })
            }
        }
    }
}
