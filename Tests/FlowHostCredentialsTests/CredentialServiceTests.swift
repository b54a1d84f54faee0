import FlowHostAudit
import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostNotifications
import FlowHostSessions
import FlowHostStore
import FlowJSON
import Foundation
import TestSupport
import Testing

/// A credential service on a real SQLite file, with a clock the test moves.
final class Fixture {
    /// The tables the credential service works on, each registered by its domain.
    static let schema = SchemaMigrator(
        CredentialsSchema.register(in:), SessionsSchema.register(in:), OutboxSchema.register(in:), DevicesSchema.register(in:),
        NotificationsSchema.register(in:))

    let storage: ThrowAwayStore
    var folder: String { storage.folder.path }
    var store: SQLiteStore { storage.store }
    var now: Int64 = 1_800_000_000
    var service: CredentialService!
    /// The sessions and devices domains over the same context, as the host has them.
    var sessions: SessionService!
    var devices: DeviceProofs!
    var context: DomainContext!
    /// What the operator does (the admin CLI), over the same service.
    var operatorActions: OperatorActions { OperatorActions(service) }
    /// Password checks, over the same service.
    var passwords: PasswordVerification { PasswordVerification(service) }
    let outbox: OutboxDelivery
    let keyring: DeviceKeyring

    init(configure: (inout CredentialSettings) -> Void = { _ in }, sessions: (inout SessionSettings) -> Void = { _ in }) throws {
        storage = try ThrowAwayStore(Self.schema)
        let folder = storage.folder.path
        outbox = try OutboxDelivery(keyPath: folder + "/store.sqlite.key")
        keyring = try DeviceKeyring(folder: folder + "/devices")
        var settings = CredentialSettings()
        settings.hasher = Argon2idHasher(memoryKiB: 1024, iterations: 1, parallelism: 1)
        settings.maxActivationAttempts = 3
        settings.maxPasswordAttempts = 3
        configure(&settings)
        var sessionSettings = SessionSettings()
        sessions(&sessionSettings)
        context = DomainContext(store: store, clock: { [unowned self] in now })
        service = CredentialService(context, settings: settings, delivery: outbox, sessions: sessionSettings)
        self.sessions = SessionService(context, settings: sessionSettings)
        devices = service.devices  // the service spends the proofs its own DeviceProofs keeps
    }


    /// A user activated on device d1 with `password`; returns the activation's session.
    @discardableResult
    func activeUser(_ userID: String = "alice", password: String = "Tr0ub4dor&Zebra") throws -> String {
        let code = try operatorActions.addUser(userID)
        let grant = try accept(userID, code.activationCode)
        guard case .completed(let session) = try service.completeActivation(
            userID, deviceID: "d1", deviceName: "phone", grant: grant, password: password, ldaType: nil, key: try newKey(), workflow: "FirstTimeUserActivation")
        else { throw StoreError("activation did not complete") }
        return session.sessionID
    }

    /// A new host-custody key for a device.
    func newKey() throws -> NewDeviceKey {
        let (keyID, publicKey) = try keyring.create()
        return NewDeviceKey(keyID: keyID, publicKey: publicKey, custody: "host")
    }

    /// A fresh proof that `device` holds the user's key (signed with the keyring).
    func proof(_ userID: String = "alice", device: String = "d1") throws -> DevicePossession {
        guard case .challenge(let nonce, let message, let key) = try devices.begin(userID: userID, deviceID: device, reason: "login"),
            let signature = try keyring.sign(message, keyID: key.keyID),
            case .proven(let proof) = try devices.finish(userID: userID, deviceID: device, nonce: nonce, message: message, signature: signature)
        else { throw StoreError("no proof for \(userID) on \(device)") }
        return .proof(proof)
    }

    func proofText(_ userID: String = "alice") throws -> String {
        guard case .proof(let text) = try proof(userID) else { throw StoreError("no proof") }
        return text
    }

    /// `logIn` with a fresh proof from device d1.
    func logIn(_ userID: String = "alice", _ password: String) throws -> (PasswordOutcome, sessionID: String?) {
        let (outcome, session) = try passwords.logIn(userID, password, deviceID: "d1", workflow: "NormalLogin", possession: try proof(userID))
        return (outcome, session?.sessionID)
    }

    /// The grant of an accepted code (fails the test when not accepted).
    func accept(_ userID: String, _ code: String, device: String = "d1") throws -> String {
        let outcome = try service.verifyActivationCode(userID, code: code, deviceID: device)
        guard case .accepted(let grant) = outcome else { throw StoreError("code not accepted: \(outcome)") }
        return grant
    }

    func isAccepted(_ outcome: ActivationOutcome) -> Bool {
        if case .accepted = outcome { return true }
        return false
    }

    /// The newest code in the outbox, opened.
    func latestOutboxCode() throws -> String {
        let messages = try store.read { try $0.outbox(includeDelivered: false) }
        return try outbox.open(messages.last!)["activationCode"]!.stringValue!
    }
}

@Suite struct ActivationCodeTests {
    @Test func codeIsSingleUse() throws {
        let f = try Fixture()
        let code = try f.operatorActions.addUser("alice")
        #expect(f.isAccepted(try f.service.verifyActivationCode("alice", code: code.activationCode, deviceID: "d1")))
        #expect(try f.service.verifyActivationCode("alice", code: code.activationCode, deviceID: "d1") == .alreadyUsed(attemptsLeft: 3))
    }

    @Test func codeExpires() throws {
        let f = try Fixture()
        let code = try f.operatorActions.addUser("alice")
        f.now += 600
        #expect(try f.service.verifyActivationCode("alice", code: code.activationCode, deviceID: "d1") == .expired(attemptsLeft: 3))
        #expect(try f.service.userState("alice", deviceID: "d1")?.verificationKey == nil)
    }

    @Test func codeIsValidJustBeforeExpiry() throws {
        let f = try Fixture()
        let code = try f.operatorActions.addUser("alice")
        f.now += 599
        #expect(f.isAccepted(try f.service.verifyActivationCode("alice", code: code.activationCode.lowercased(), deviceID: "d1")))
    }

    @Test func wrongCodesCountDownThenBlockWith138() throws {
        let f = try Fixture()
        let code = try f.operatorActions.addUser("alice")
        #expect(try f.service.verifyActivationCode("alice", code: "nope", deviceID: "d1") == .wrong(attemptsLeft: 2))
        #expect(try f.service.verifyActivationCode("alice", code: "nope", deviceID: "d1") == .wrong(attemptsLeft: 1))
        #expect(try f.service.verifyActivationCode("alice", code: "nope", deviceID: "d1") == .refused(.blocked(.activationAttempts)))
        #expect(try f.service.verifyActivationCode("alice", code: code.activationCode, deviceID: "d1") == .refused(.blocked(.activationAttempts)))
        #expect(try f.service.userState("alice", deviceID: "d1")?.blockedStatus == 138)
    }

    @Test func resendIsRateLimitedAndKeepsTheAttemptCount() throws {
        let f = try Fixture()
        let first = try f.operatorActions.addUser("alice")
        _ = try f.service.verifyActivationCode("alice", code: "nope", deviceID: "d1")
        guard case .sent(_, let left) = try f.service.resendActivationCode("alice", deviceID: "d1") else {
            Issue.record("not sent"); return
        }
        #expect(left == 2)
        #expect(try f.service.resendActivationCode("alice", deviceID: "d1") == .tooSoon(retryAfterSeconds: 30))
        f.now += 30
        guard case .sent = try f.service.resendActivationCode("alice", deviceID: "d1") else { Issue.record("not sent"); return }
        // The old code no longer works, and typing it costs nothing; the delivered one works.
        #expect(try f.service.verifyActivationCode("alice", code: first.activationCode, deviceID: "d1") == .superseded(attemptsLeft: 2))
        let messages = try f.store.read { try $0.outbox(includeDelivered: false) }
        #expect(messages.count == 2)
        #expect(f.isAccepted(try f.service.verifyActivationCode("alice", code: try f.latestOutboxCode(), deviceID: "d1")))
    }

    @Test func outboxIsSealedAndBoundToItsUser() throws {
        let f = try Fixture()
        _ = try f.operatorActions.addUser("alice")
        _ = try f.service.resendActivationCode("alice", deviceID: "d1")
        var message = try f.store.read { try $0.outbox(includeDelivered: false) }.first!
        let code = try f.outbox.open(message)["activationCode"]!.stringValue!
        #expect(!String(decoding: message.sealedBody, as: UTF8.self).contains(code))
        message.userID = "mallory"
        #expect(throws: (any Error).self) { try f.outbox.open(message) }
    }
}

@Suite struct PasswordAttemptTests {
    @Test func wrongPasswordsCountDownThenBlockWith141() throws {
        let f = try Fixture()
        try f.activeUser()
        #expect(try f.passwords.verify("alice", "wrong", deviceID: "d1") == .wrong(attemptsLeft: 2))
        #expect(try f.passwords.verify("alice", "wrong", deviceID: "d1") == .wrong(attemptsLeft: 1))
        #expect(try f.passwords.verify("alice", "wrong", deviceID: "d1") == .refused(.blocked(.passwordAttempts)))
        #expect(try f.passwords.verify("alice", "Tr0ub4dor&Zebra", deviceID: "d1") == .refused(.blocked(.passwordAttempts)))
        #expect(try f.service.userState("alice", deviceID: "d1")?.blockedStatus == 141)
        try f.operatorActions.unblock("alice")
        #expect(try f.passwords.verify("alice", "Tr0ub4dor&Zebra", deviceID: "d1") == .accepted(expired: false))
    }

    @Test func loginOpensASessionOnlyForAGoodUnexpiredPassword() throws {
        let f = try Fixture()
        try f.activeUser()
        let wrong = try f.logIn("alice", "nope")
        #expect(wrong.0 == .wrong(attemptsLeft: 2) && wrong.sessionID == nil)
        let good = try f.logIn("alice", "Tr0ub4dor&Zebra")
        #expect(good.0 == .accepted(expired: false))
        let session = try f.store.read { try $0.session(good.sessionID!) }
        #expect(session?.userID == "alice" && session?.workflow == "NormalLogin")
        try f.operatorActions.expirePassword("alice")
        let expired = try f.logIn("alice", "Tr0ub4dor&Zebra")
        #expect(expired.0 == .accepted(expired: true) && expired.sessionID == nil)
    }

    @Test func successRestoresTheAttempts() throws {
        let f = try Fixture()
        try f.activeUser()
        _ = try f.passwords.verify("alice", "wrong", deviceID: "d1")
        _ = try f.passwords.verify("alice", "Tr0ub4dor&Zebra", deviceID: "d1")
        #expect(try f.service.userState("alice", deviceID: "d1")?.passwordAttemptsLeft == 3)
    }

    @Test func countersSurviveReopeningTheStore() throws {
        let f = try Fixture()
        try f.activeUser()
        _ = try f.passwords.verify("alice", "wrong", deviceID: "d1")
        let reopened = CredentialService(
            DomainContext(store: try SQLiteStore(path: f.folder + "/store.sqlite", schema: Fixture.schema)), settings: f.service.settings,
            delivery: f.outbox)
        #expect(try reopened.userState("alice", deviceID: "d1")?.passwordAttemptsLeft == 2)
    }

    @Test func historyRefusesTheLastFive() throws {
        let f = try Fixture()
        try f.activeUser(password: "Tr0ub4dor&Zeb0")
        var current = "Tr0ub4dor&Zeb0"
        for index in 1...5 {
            let next = "Tr0ub4dor&Zeb\(index)"
            #expect(try f.passwords.update("alice", current: current, new: next, deviceID: "d1") == .updated)
            current = next
        }
        // The last five (1...5) are refused; the first has left the history.
        #expect(try f.service.checkNewPassword("alice", "Tr0ub4dor&Zeb3") == .reused)
        #expect(try f.service.checkNewPassword("alice", "Tr0ub4dor&Zeb0") == .acceptable)
    }

    @Test func expiryByOperatorAndByAge() throws {
        let f = try Fixture { $0.passwordLifetimeDays = 90 }
        try f.activeUser()
        #expect(try f.passwords.verify("alice", "Tr0ub4dor&Zebra", deviceID: "d1") == .accepted(expired: false))
        f.now += 90 * 86_400
        #expect(try f.passwords.verify("alice", "Tr0ub4dor&Zebra", deviceID: "d1") == .accepted(expired: true))
        #expect(try f.passwords.update("alice", current: "Tr0ub4dor&Zebra", new: "Fresh&Str0ngPass", deviceID: "d1") == .updated)
        #expect(try f.passwords.verify("alice", "Fresh&Str0ngPass", deviceID: "d1") == .accepted(expired: false))
        try f.operatorActions.expirePassword("alice")
        #expect(try f.passwords.verify("alice", "Fresh&Str0ngPass", deviceID: "d1") == .accepted(expired: true))
    }

    @Test func auditHoldsNoSecret() throws {
        let f = try Fixture()
        let code = try f.operatorActions.addUser("alice")
        let grant = try f.accept("alice", code.activationCode)
        _ = try f.service.completeActivation("alice", deviceID: "d1", deviceName: "p", grant: grant, password: "Tr0ub4dor&Zebra", ldaType: nil, key: try f.newKey(), workflow: "x")
        _ = try f.passwords.verify("alice", "WrongSecret9!", deviceID: "d1")
        try f.context.audit.record(in: f.store, userID: "Hunter2-Secret!", action: "login.user", outcome: "unknown")
        let entries = try f.store.read { try $0.auditEntries(userID: nil, limit: 100) }
        #expect(entries.count >= 5)
        let text = entries.map { "\($0.action) \($0.outcome) \($0.detail ?? "")" }.joined(separator: "\n")
        let counts = try f.store.read { try $0.auditCounts(userID: nil, limit: 100) }
        let countText = counts.map { "\($0.userID) \($0.action) \($0.outcome)" }.joined(separator: "\n")
        for secret in [code.activationCode, "Tr0ub4dor&Zebra", "WrongSecret9!", "Hunter2-Secret!"] {
            #expect(!text.contains(secret))
            #expect(!countText.contains(secret))
        }
        #expect(counts.contains { $0.userID == "" && $0.action == "login.user" && $0.outcome == "unknown" })
    }
}

@Suite struct SettingsTests {
    @Test func unknownKeysAreNamed() throws {
        let passwords = try JSON.parse(#"{"policy":{"minLength":3}}"#)
        #expect(throws: CredentialSettings.Invalid(key: "passwords.policy.minLength", reason: "unknown key")) {
            try CredentialSettings.parse(passwords: passwords, activation: nil)
        }
        let activation = try JSON.parse(#"{"maxAttempts":0}"#)
        #expect(throws: CredentialSettings.Invalid(key: "activation.maxAttempts", reason: "must be an integer from 1 to 100")) {
            try CredentialSettings.parse(passwords: nil, activation: activation)
        }
    }

    @Test func valuesAreRead() throws {
        let settings = try CredentialSettings.parse(
            passwords: try JSON.parse(#"{"argon2":{"memoryKiB":4096,"iterations":3,"parallelism":1},"historyDepth":3,"policy":{"SeqCheck":"false","minL":10}}"#),
            activation: try JSON.parse(#"{"codeLifetimeSeconds":120}"#))
        #expect(settings.hasher == Argon2idHasher(memoryKiB: 4096, iterations: 3, parallelism: 1))
        #expect(settings.historyDepth == 3)
        #expect(settings.policy.seqCheck == false)
        #expect(settings.policy.minL == 10)
        #expect(settings.activationCodeLifetimeSeconds == 120)
        #expect(try DeliverySettings.parse(try JSON.parse(#"{"command":["/bin/cat"],"attempts":2}"#)).command == ["/bin/cat"])
        #expect(throws: CredentialSettings.Invalid.self) {
            try CredentialSettings.parse(passwords: nil, activation: try JSON.parse(#"{"deliveryCommand":["/bin/cat"]}"#))
        }
    }
}
