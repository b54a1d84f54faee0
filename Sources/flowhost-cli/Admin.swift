import ArgumentParser
import FlowHostAccounts
import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostNotifications
import FlowHostPOSIX
import FlowHostServices
import FlowHostSessions
import FlowHostStore
import FlowJSON
import JSONRPC

#if canImport(Glibc)
import Glibc
#endif

/// `flowhost admin …`: the operator's tools, on the same store as the host.
struct Admin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage users, codes and the audit log in the store.",
        subcommands: [
            AddUser.self, ShowUser.self, Session.self, Block.self, Unblock.self, ExpirePassword.self, IssueCode.self, Outbox.self,
            Devices.self, RevokeDevice.self, Notify.self, Notifications.self, Audit.self, VerifySignature.self, ExportKey.self,
            Prune.self, Check.self, RotateIssuer.self, WithdrawIssuer.self,
        ])
}

/// The options every admin command takes.
struct AdminOptions: ParsableArguments {
    @OptionGroup var storage: StoreOptions

    @Option(help: "A JSON config file (the password and activation settings).")
    var config: String?

    @Flag(help: "Print JSON for machines.")
    var json = false

    func domains() throws -> HostDomains {
        let configuration = try config.map { path in
            do { return try HostConfiguration.load(path: path, moduleSections: HostModules.configSections) } catch { throw ValidationError("\(error)") }
        } ?? HostConfiguration()
        let domains = try storage.domains(try HostSettings.validated(configuration))
        if let events = domains.context.audit.events.sink as? AuditEventDelivery { AdminEvents.add(events) }
        if let pushes = domains.push as? NotificationPushes { AdminEvents.add(pushes.delivery) }
        return domains
    }

    func credentials() throws -> CredentialService { try domains().credentials }

    func operatorActions() throws -> OperatorActions { OperatorActions(try credentials()) }

    /// The store, read or written directly (listings, the outbox).
    func store() throws -> any FlowStore { try domains().context.store }

    /// JSON for machines, or text for a person (its values escaped: `TerminalText`).
    func emit(_ value: JSON, text: () -> TerminalText) {
        print(json ? value.serialized() : text().text)
    }
}

/// Runs an admin action, turning store errors into one clear line and status 1.
func adminRun(_ body: () throws -> Void) throws {
    do {
        try body()
        AdminEvents.runEnqueued()
    } catch let error as StoreError where error == .notFound {
        printError("flowhost admin: no such user")
        throw ExitCode(1)
    } catch let error as StoreError {
        printError("flowhost admin: \(error)")
        throw ExitCode(1)
    } catch let error as CredentialError {
        printError("flowhost admin: \(error)")
        throw ExitCode(1)
    } catch let error as DeliveryError {
        printError("flowhost admin: \(error)")
        throw ExitCode(1)
    }
}

/// The config's `events.command` (and `push.command`) deliveries of this admin command, one per
/// `domains()` it opened: the events each enqueued run before the command
/// exits, and only those (a read-only command runs none).
enum AdminEvents {
    /// Process-wide because `adminRun` wraps each subcommand's body, while
    /// the deliveries are made inside `domains()`, which a subcommand may
    /// call more than once and through several helpers. `nonisolated(unsafe)`:
    /// an admin command runs on the main thread alone.
    nonisolated(unsafe) private static var deliveries: [AuditEventDelivery] = []
    /// The `push.command` deliveries, alike.
    nonisolated(unsafe) private static var pushes: [PushDelivery] = []

    static func add(_ delivery: AuditEventDelivery) { deliveries.append(delivery) }

    static func add(_ delivery: PushDelivery) { pushes.append(delivery) }

    /// Runs what each delivery enqueued (each once; a failure waits for a host's worker).
    static func runEnqueued() {
        for delivery in deliveries { delivery.runEnqueued() }
        for delivery in pushes { delivery.runEnqueued() }
    }
}

/// One line on stderr.
func printError(_ line: String) {
    try? SystemFile.writeAll(2, Array((line + "\n").utf8))
}

extension AdminOptions {
    /// Prints a code the operator hands to its user (this is the one place a
    /// code is shown: it goes to the operator's terminal, never to a log).
    func emit(_ code: IssuedCode, heading: String?) {
        let value: JSON = [
            "userID": .string(code.userID), "activationCode": .string(code.activationCode),
            "verificationKey": .string(code.verificationKey), "expiresAt": .int(Int(code.expiresAt)),
        ]
        emit(value) {
            (heading.map { "\($0)\n" } ?? "")
                + "activation code: \(code.activationCode)\nverification key: \(code.verificationKey)\nexpires: \(isoTime(code.expiresAt))"
        }
    }

    /// A user, their devices and open sessions, read together (after ending
    /// the sessions whose lifetime ran out); an unknown user is `notFound`.
    func userAndDevices(_ userID: String) throws -> (UserRecord, [DeviceRecord], openSessions: Int) {
        let domains = try domains()
        try domains.sessions.endExpired()
        return try domains.context.store.read { tx in
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            return (user, try tx.devices(userID: userID), try tx.openSessions(userID: userID).count)
        }
    }

    /// Applies an operator action to a user and reports it.
    func change(_ userID: String, _ action: (OperatorActions) throws -> Void, report: JSON, text: TerminalText) throws {
        try adminRun {
            try action(operatorActions())
            emit(report) { text }
        }
    }
}

/// RFC 3339 / ISO 8601 in UTC.
func isoTime(_ seconds: Int64) -> String { ISOTime.string(seconds) }
