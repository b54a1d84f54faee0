import ArgumentParser
import FlowHostServices
import FlowHostSessions
import FlowJSON

/// `flowhost admin session ID`: whether a session is still open, for a
/// backend that holds a session token (spec §10): the token proves who
/// logged in and until when at the latest, not that no one logged off since.
extension Admin {
    struct Session: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show whether a session is open, ended or expired, and when (exit status 0 only while it is open).")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The session's id (the token's sid, sessionInfo.sessionID).") var sessionID: String

        func run() throws {
            try adminRun {
                let domains = try options.domains()
                // Sessions past their idle or absolute lifetime end first, as a host would end them.
                try domains.sessions.endExpired()
                guard let session = try domains.context.store.read({ try $0.session(sessionID) }) else {
                    printError("flowhost admin: no such session")
                    throw ExitCode(1)
                }
                let state = Self.state(of: session)
                let settings = domains.sessions.settings
                let value: JSON = [
                    "sessionID": .string(session.sessionID), "userID": .string(session.userID), "deviceID": .string(session.deviceID),
                    "state": .string(state), "openedAt": .int(Int(session.createdAt)), "lastSeenAt": .int(Int(session.lastSeenAt)),
                    // While open: the latest it can last (its idle end, unless used again, and its absolute end).
                    "endsBy": .optional(
                        session.endedAt == nil
                            ? min(session.lastSeenAt + settings.idleTimeoutSeconds, session.createdAt + settings.lifetimeSeconds) : nil
                    ) { .int(Int($0)) },
                    "endedAt": .optional(session.endedAt) { .int(Int($0)) }, "endReason": .optional(session.endReason, JSON.string),
                ]
                options.emit(value) {
                    TerminalText(lines: value.keys.filter { value[$0]!.kind != .null }.map { "\($0): \(value[$0]!.stringValue ?? value[$0]!.serialized())" })
                }
                if state != "open" { throw ExitCode(1) }
            }
        }

        /// open; expired (ended by its idle or absolute lifetime); ended (any other way: logoff, block, a failed step-up, …).
        static func state(of session: SessionRecord) -> String {
            guard session.endedAt != nil else { return "open" }
            return ["idle", "lifetime"].contains(session.endReason ?? "") ? "expired" : "ended"
        }
    }
}
