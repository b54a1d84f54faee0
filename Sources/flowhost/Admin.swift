import FlowHostPOSIX
import ArgumentParser
import FlowHostCore
import FlowHostServices
import FlowHostCredentials
import FlowHostDelivery
import FlowHostNotifications
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
            AddUser.self, ShowUser.self, Block.self, Unblock.self, ExpirePassword.self, IssueCode.self, Outbox.self,
            Devices.self, RevokeDevice.self, Notify.self, Notifications.self, Audit.self, VerifySignature.self, ExportKey.self,
            Prune.self,
        ])
}

/// The options every admin command takes.
struct AdminOptions: ParsableArguments {
    @OptionGroup var storage: StoreOptions

    @Option(help: "A JSON config file (the password and activation settings).")
    var config: String?

    @Flag(help: "Print JSON for machines.")
    var json = false

    func credentials() throws -> CredentialService {
        let configuration = try config.map { path in
            do { return try HostConfiguration.load(path: path, moduleSections: HostModules.configSections) } catch { throw ValidationError("\(error)") }
        } ?? HostConfiguration()
        return try storage.credentials(configuration)
    }

    /// JSON for machines, or text for a person (its values escaped: `TerminalText`).
    func emit(_ value: JSON, text: () -> TerminalText) {
        print(json ? value.serialized() : text().text)
    }
}

/// Runs an admin action, turning store errors into one clear line and status 1.
func adminRun(_ body: () throws -> Void) throws {
    do {
        try body()
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
        let credentials = try credentials()
        try credentials.sessions.endExpired()
        return try credentials.store.read { tx in
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            return (user, try tx.devices(userID: userID), try tx.openSessions(userID: userID).count)
        }
    }

    /// Applies an operator action to a user and reports it.
    func change(_ userID: String, _ action: (CredentialService) throws -> Void, report: JSON, text: TerminalText) throws {
        try adminRun {
            try action(credentials())
            emit(report) { text }
        }
    }
}

/// RFC 3339 / ISO 8601 in UTC.
func isoTime(_ seconds: Int64) -> String { ISOTime.string(seconds) }

extension Admin {
    struct AddUser: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a user and print its activation code.")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String

        func run() throws {
            try adminRun { options.emit(try options.credentials().addUser(userID), heading: "user \(userID) created") }
        }
    }

    struct IssueCode: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Issue a new activation code (replaces older ones).")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String

        func run() throws {
            try adminRun { options.emit(try options.credentials().issueActivationCode(userID), heading: nil) }
        }
    }

    struct ShowUser: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a user's state (never a secret).")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String

        func run() throws {
            try adminRun {
                let (user, devices, openSessions) = try options.userAndDevices(userID)
                let value: JSON = [
                    "userID": .string(user.userID), "status": .string(user.status.rawValue),
                    "blocked": .optional(user.blockReason) { .string($0.rawValue) },
                    "activationAttemptsLeft": .int(user.activationAttemptsLeft),
                    "passwordAttemptsLeft": .int(user.passwordAttemptsLeft), "passwordExpired": .bool(user.passwordExpired),
                    "devices": .int(devices.count), "openSessions": .int(openSessions), "createdAt": .string(isoTime(user.createdAt)),
                ]
                options.emit(value) {
                    TerminalText(lines: value.keys.map { "\($0): \(value[$0]!.stringValue ?? value[$0]!.serialized())" })
                }
            }
        }
    }

    struct Block: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Block a user (status 138 at setUser).")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        func run() throws {
            try options.change(userID, { try $0.block(userID) }, report: ["userID": .string(userID), "blocked": true], text: "\(userID) blocked")
        }
    }

    struct Unblock: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unblock a user and restore its attempts (the SDK's resetBlockedUserAccount).")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        func run() throws {
            try options.change(userID, { try $0.unblock(userID) }, report: ["userID": .string(userID), "blocked": false], text: "\(userID) unblocked")
        }
    }

    struct ExpirePassword: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Expire a user's password (getPassword mode 4 at next login).")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        func run() throws {
            try options.change(
                userID, { try $0.expirePassword(userID) }, report: ["userID": .string(userID), "passwordExpired": true],
                text: "\(userID): password expired")
        }
    }

    struct Outbox: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the codes waiting for delivery (opened with the outbox key).")
        @OptionGroup var options: AdminOptions
        @Flag(help: "Include delivered messages.") var all = false
        @Flag(help: "Mark the shown messages delivered.") var markDelivered = false

        func run() throws {
            try adminRun {
                let credentials = try options.credentials()
                let outbox = try options.storage.outbox()
                let messages = try credentials.store.read { try $0.outbox(includeDelivered: all) }
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
                    let now = CredentialService.now()
                    try credentials.store.write { tx in for message in messages { try tx.markDelivered(outboxID: message.id!, at: now) } }
                }
                options.emit(opened) {
                    TerminalText(lines: opened.elements.map {
                        "#\($0["id"]!.intValue!) \($0["userID"]!.stringValue!): code \($0["activationCode"]!.stringValue!) key \($0["verificationKey"]!.stringValue!)"
                    })
                }
            }
        }
    }

    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a user's devices.")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        func run() throws {
            try adminRun {
                let (_, devices, _) = try options.userAndDevices(userID)
                let keys = try options.credentials().store.read { tx in
                    try devices.map { try tx.deviceKey(userID: userID, deviceID: $0.deviceID) }
                }
                let value = JSON.array(
                    zip(devices, keys).map { device, key in
                        let entry: JSON = [
                            "devUUID": .string(device.deviceID), "devName": .string(device.name), "status": .string(device.status.rawValue),
                            "ldaType": .optional(device.ldaType, JSON.int), "createdTs": .string(isoTime(device.createdAt)),
                            "lastAccessedTs": .string(isoTime(device.lastAccessAt)),
                            // The public half only: a private key is never shown.
                            "keyID": .optional(key?.keyID, JSON.string), "keyCustody": .optional(key?.custody, JSON.string),
                            "keyCreatedTs": .optional(key.map { isoTime($0.createdAt) }, JSON.string),
                            "keyRevokedTs": .optional(key?.revokedAt.map(isoTime), JSON.string),
                        ]
                        return entry
                    })
                options.emit(value) {
                    TerminalText(lines: zip(devices, keys).map { device, key in
                        "\(device.deviceID)  \(device.name)  \(device.status.rawValue)  lda=\(device.ldaType.map(String.init) ?? "-")  key=\(key?.keyID ?? "none")"
                    })
                }
            }
        }
    }

    struct RevokeDevice: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-device", abstract: "Revoke a user's device: it can neither log in nor sign until activated again.")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        @Argument var deviceID: String
        func run() throws {
            try adminRun {
                let key = try options.credentials().revokeDevice(userID, deviceID: deviceID)
                // A host-custody key's secret half is a file beside the host: a revoked key must not stay on disk.
                var removed = false
                if let key, key.custody == "host" { removed = try options.storage.keyring().remove(key.keyID) }
                let report: JSON = [
                    "userID": .string(userID), "devUUID": .string(deviceID), "revoked": true, "keyFileRemoved": .bool(removed),
                ]
                options.emit(report) {
                    "\(userID): device \(deviceID) revoked" + (removed ? "; its key file \(key!.keyID).key was removed" : "" as TerminalText)
                }
            }
        }
    }

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
                let credentials = try options.credentials()
                let service = NotificationService(store: credentials.store, audit: credentials.audit, clock: CredentialService.now)
                let wake = try options.storage.feedWake()
                service.ringFeed = { wake.ring() }
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
                let credentials = try options.credentials()
                let service = NotificationService(store: credentials.store, audit: credentials.audit, clock: CredentialService.now)
                let now = CredentialService.now()
                let items = try service.history(userID: userID, startIndex: 1, recordCount: 0).map { NotificationShapes.historyItem($0, now: now) }
                options.emit(.array(items)) {
                    TerminalText(lines: items.map { "\($0["notification_uuid"]!.stringValue!)  \($0["status"]!.stringValue!)  \($0["action_performed"]!.stringValue!)" })
                }
            }
        }
    }

    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the audit log, newest first.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Only this user's entries.") var user: String?
        @Option(help: "At most this many entries.") var limit = 100
        @Flag(help: "Show the hourly counts of events that change nothing (unknown users, resets, refusals) instead.")
        var counts = false

        func run() throws {
            if counts { return try runCounts() }
            try adminRun {
                let entries = try options.credentials().store.read { try $0.auditEntries(userID: user, limit: limit) }
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
            let rows = try options.credentials().store.read { try $0.auditCounts(userID: user, limit: limit) }
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
