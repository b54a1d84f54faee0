import FlowHostStore
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The security logic over the store: codes, passwords, attempts, devices,
/// sessions, audit. Flows reach it through the host's services; the admin
/// CLI calls it directly.
///
/// Every counter lives in the store and every change is one transaction, so
/// a restart never resets an attempt count and two hosts on one store agree.
/// Slow hashing runs outside transactions; the counter update after it
/// re-reads the row inside one.
///
/// Used from one thread at a time (the host's loop, or the admin command).
public final class CredentialService {
    public let store: any FlowStore
    public let settings: CredentialSettings
    let delivery: any CodeDelivery
    let clock: () -> Int64

    public init(store: any FlowStore, settings: CredentialSettings, delivery: any CodeDelivery, clock: @escaping () -> Int64 = CredentialService.now) {
        self.store = store
        self.settings = settings
        self.delivery = delivery
        self.clock = clock
    }

    public static func now() -> Int64 { Int64(time(nil)) }

    // MARK: Operator actions

    /// Creates a pending user and its first activation code (returned, not delivered).
    public func addUser(_ userID: String) throws -> IssuedCode {
        try Self.checkUserID(userID)
        let now = clock()
        let code = ActivationCodes.newCode()
        let record = try codeRecord(userID: userID, code: code, now: now)
        try store.write { tx in
            try tx.insert(
                UserRecord(
                    userID: userID, activationAttemptsLeft: settings.maxActivationAttempts,
                    passwordAttemptsLeft: settings.maxPasswordAttempts, createdAt: now))
            try tx.insert(record)
            try audit(tx, userID, nil, "user.create", "ok")
        }
        return IssuedCode(userID: userID, activationCode: code, verificationKey: record.verificationKey, expiresAt: record.expiresAt)
    }

    /// A new code from the operator: replaces older codes and restores the
    /// activation attempts (a deliberate re-issue), but does not unblock.
    public func issueActivationCode(_ userID: String) throws -> IssuedCode {
        let now = clock()
        let code = ActivationCodes.newCode()
        let record = try codeRecord(userID: userID, code: code, now: now)
        try store.write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            try tx.retireActivationCodes(userID: userID, at: now)
            try tx.insert(record)
            user.activationAttemptsLeft = settings.maxActivationAttempts
            try tx.update(user)
            try audit(tx, userID, nil, "activation.issue", "ok")
        }
        return IssuedCode(userID: userID, activationCode: code, verificationKey: record.verificationKey, expiresAt: record.expiresAt)
    }

    public func block(_ userID: String) throws {
        try mutateUser(userID, action: "user.block") { $0.blockReason = .admin }
    }

    /// The SDK's resetBlockedUserAccount: clears the block and restores both attempt counts.
    public func unblock(_ userID: String) throws {
        try mutateUser(userID, action: "user.unblock") {
            $0.blockReason = nil
            $0.passwordAttemptsLeft = settings.maxPasswordAttempts
            $0.activationAttemptsLeft = settings.maxActivationAttempts
        }
    }

    public func expirePassword(_ userID: String) throws {
        try mutateUser(userID, action: "password.expire") { $0.passwordExpired = true }
    }

    private func mutateUser(_ userID: String, action: String, _ change: (inout UserRecord) -> Void) throws {
        try store.write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            change(&user)
            try tx.update(user)
            try audit(tx, userID, nil, action, "ok")
        }
    }

    // MARK: Reads for flows

    public func userState(_ userID: String, deviceID: String) throws -> UserState? {
        let now = clock()
        return try store.read { tx in
            guard let user = try tx.user(userID) else { return nil }
            let device = try tx.device(userID: userID, deviceID: deviceID)
            let passwords = try tx.passwords(userID: userID, limit: 1)
            let code = try tx.latestActivationCode(userID: userID)
            return UserState(
                userID: userID, isActive: user.status == .active, blockedStatus: Self.status(for: user.blockReason),
                registeredOnDevice: device?.status == .active, ldaType: device?.status == .active ? device?.ldaType : nil,
                hasPassword: !passwords.isEmpty, passwordExpired: isExpired(user, passwords.first, now: now),
                activationAttemptsLeft: user.activationAttemptsLeft, passwordAttemptsLeft: user.passwordAttemptsLeft,
                verificationKey: code.flatMap { $0.expiresAt > now ? $0.verificationKey : nil })
        }
    }

    /// Users registered on a device, most recently logged in first.
    public func rememberedUsers(deviceID: String) throws -> [String] {
        try store.read { try $0.usersRegistered(onDevice: deviceID) }
    }

    // MARK: Activation codes

    public func verifyActivationCode(_ userID: String, code: String, deviceID: String) throws -> ActivationOutcome {
        let now = clock()
        guard let (user, record) = try store.read({ tx in try tx.user(userID).map { ($0, try tx.latestActivationCode(userID: userID)) } })
        else { throw StoreError.notFound }
        if user.blockReason != nil { return .blocked }
        let typed = ActivationCodes.normalize(code)
        let matches = record.map { $0.expiresAt > now && settings.hasher.verify(typed, against: $0.codeHash) } ?? false
        return try store.write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            if user.blockReason != nil { return .blocked }
            if matches, let id = record?.id {
                try tx.markActivationCodeUsed(id: id, at: now)
                try audit(tx, userID, deviceID, "activation.verify", "ok")
                return .accepted
            }
            if let record, record.expiresAt <= now {
                try audit(tx, userID, deviceID, "activation.verify", "expired")
                return .expired(attemptsLeft: user.activationAttemptsLeft)
            }
            let left = try recordFailure(tx, &user, \.activationAttemptsLeft, blocking: .activationAttempts, deviceID: deviceID, action: "activation.verify")
            return left.map { .wrong(attemptsLeft: $0) } ?? .blocked
        }
    }

    /// A fresh code to the user's delivery channel. Rate-limited; the attempt
    /// count carries over (a resend is not a way to get more guesses).
    public func resendActivationCode(_ userID: String, deviceID: String) throws -> ResendOutcome {
        let now = clock()
        let code = ActivationCodes.newCode()
        let record = try codeRecord(userID: userID, code: code, now: now)
        return try store.write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            if user.blockReason != nil { return .blocked }
            if let last = user.lastResendAt, now - last < settings.resendIntervalSeconds {
                try audit(tx, userID, deviceID, "activation.resend", "rate-limited")
                return .tooSoon(retryAfterSeconds: settings.resendIntervalSeconds - (now - last))
            }
            try tx.retireActivationCodes(userID: userID, at: now)
            try tx.insert(record)
            user.lastResendAt = now
            try tx.update(user)
            try delivery.deliver(
                CodeMessage(userID: userID, activationCode: code, verificationKey: record.verificationKey, expiresAt: record.expiresAt),
                in: tx, at: now)
            try audit(tx, userID, deviceID, "activation.resend", "ok")
            return .sent(verificationKey: record.verificationKey, attemptsLeft: user.activationAttemptsLeft)
        }
    }

    // MARK: Passwords

    /// Policy (190) then history (164), without storing anything.
    public func checkNewPassword(_ userID: String, _ password: String) throws -> NewPasswordCheck {
        let problems = settings.policy.violations(of: password, userID: userID)
        if !problems.isEmpty { return .violatesPolicy(problems) }
        let history = try store.read { try $0.passwords(userID: userID, limit: settings.historyDepth) }
        if history.contains(where: { settings.hasher.verify(password, against: $0.hash) }) { return .reused }
        return .acceptable
    }

    public func verifyPassword(_ userID: String, _ password: String, deviceID: String) throws -> PasswordOutcome {
        let now = clock()
        let (user, current) = try userAndPassword(userID)
        if user.blockReason != nil { return .blocked }
        let matches = current.map { settings.hasher.verify(password, against: $0.hash) } ?? false
        return try store.write { tx in
            try recordVerification(tx, userID: userID, deviceID: deviceID, matches: matches, current: current, now: now)
        }
    }

    /// The counter side of a password check, inside the caller's transaction:
    /// re-reads the user, then restores or lowers the attempts.
    private func recordVerification(
        _ tx: any StoreWriter, userID: String, deviceID: String, matches: Bool, current: PasswordRecord?, now: Int64
    ) throws -> PasswordOutcome {
        guard var user = try tx.user(userID) else { throw StoreError.notFound }
        if user.blockReason != nil { return .blocked }
        if matches {
            if user.passwordAttemptsLeft != settings.maxPasswordAttempts {
                user.passwordAttemptsLeft = settings.maxPasswordAttempts
                try tx.update(user)
            }
            let expired = isExpired(user, current, now: now)
            try audit(tx, userID, deviceID, "password.verify", expired ? "ok-expired" : "ok")
            return .accepted(expired: expired)
        }
        let left = try recordFailure(tx, &user, \.passwordAttemptsLeft, blocking: .passwordAttempts, deviceID: deviceID, action: "password.verify")
        return left.map { .wrong(attemptsLeft: $0) } ?? .blocked
    }

    /// A wrong answer: one attempt fewer, and a block when none are left.
    /// Returns the attempts left, or nil when the user is now blocked.
    private func recordFailure(
        _ tx: any StoreWriter, _ user: inout UserRecord, _ counter: WritableKeyPath<UserRecord, Int>, blocking reason: BlockReason,
        deviceID: String, action: String
    ) throws -> Int? {
        user[keyPath: counter] = max(0, user[keyPath: counter] - 1)
        if user[keyPath: counter] == 0 { user.blockReason = reason }
        try tx.update(user)
        try audit(tx, user.userID, deviceID, action, user.blockReason == nil ? "wrong" : "blocked",
                  ["attemptsLeft": .int(user[keyPath: counter])])
        return user.blockReason == nil ? user[keyPath: counter] : nil
    }

    /// The user and their current password hash, read before hashing (which
    /// runs outside any transaction).
    private func userAndPassword(_ userID: String) throws -> (UserRecord, PasswordRecord?) {
        guard let found = try store.read({ tx in try tx.user(userID).map { ($0, try tx.passwords(userID: userID, limit: 1).first) } })
        else { throw StoreError.notFound }
        return found
    }

    /// A password login: verification and, when it succeeds with a password
    /// that has not expired, the session, in one transaction (one commit).
    public func logIn(_ userID: String, _ password: String, deviceID: String, workflow: String) throws -> (PasswordOutcome, sessionID: String?) {
        let now = clock()
        let (user, current) = try userAndPassword(userID)
        if user.blockReason != nil { return (.blocked, nil) }
        let matches = current.map { settings.hasher.verify(password, against: $0.hash) } ?? false
        // A failed attempt must survive a power loss; a success may not need to.
        return try store.write(durability: matches ? .relaxed : .full) { tx in
            let outcome = try recordVerification(tx, userID: userID, deviceID: deviceID, matches: matches, current: current, now: now)
            guard case .accepted(expired: false) = outcome else { return (outcome, nil) }
            if var device = try tx.device(userID: userID, deviceID: deviceID) {
                device.lastAccessAt = now
                try tx.save(device)
            }
            return (outcome, try openSession(tx, userID: userID, deviceID: deviceID, workflow: workflow, now: now))
        }
    }

    /// `updatePassword(current, new, 4)`: the current password must verify,
    /// the new one must pass the policy and the history.
    public func updatePassword(_ userID: String, current: String, new: String, deviceID: String) throws -> PasswordUpdateOutcome {
        switch try verifyPassword(userID, current, deviceID: deviceID) {
        case .blocked: return .blocked
        case .wrong(let left): return .wrongCurrent(attemptsLeft: left)
        case .accepted: break
        }
        let check = try checkNewPassword(userID, new)
        guard check == .acceptable else {
            try store.write { try audit($0, userID, deviceID, "password.update", check == .reused ? "reused" : "policy") }
            return .rejected(check)
        }
        let hash = try settings.hasher.hash(new)
        try store.write { tx in
            try storePassword(tx, userID: userID, hash: hash)
            try audit(tx, userID, deviceID, "password.update", "ok")
        }
        return .updated
    }

    // MARK: Activation completion, LDA, sessions

    /// The end of activation on a device: the credential the user chose
    /// (a password, checked already with `checkNewPassword`, or an LDA
    /// enrollment), the device registration and a session, in one step.
    public func completeActivation(
        _ userID: String, deviceID: String, deviceName: String, password: String?, ldaType: Int?, workflow: String
    ) throws -> String {
        let hash = try password.map { try settings.hasher.hash($0) }
        let now = clock()
        return try store.write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            if let hash { try storePassword(tx, userID: userID, hash: hash) }
            let existing = try tx.device(userID: userID, deviceID: deviceID)
            try tx.save(
                DeviceRecord(
                    userID: userID, deviceID: deviceID, name: deviceName, status: .active, ldaType: ldaType,
                    createdAt: existing?.createdAt ?? now, lastAccessAt: now))
            user.status = .active
            user.activationAttemptsLeft = settings.maxActivationAttempts
            try tx.update(user)
            try audit(tx, userID, deviceID, "activation.complete", "ok",
                      ["credential": .string(ldaType == nil ? "password" : "lda"), "workflow": .string(workflow)])
            return try openSession(tx, userID: userID, deviceID: deviceID, workflow: workflow, now: now)
        }
    }

    public func openSession(_ userID: String, deviceID: String, workflow: String) throws -> String {
        let now = clock()
        return try store.write(durability: .relaxed) { tx in
            if var device = try tx.device(userID: userID, deviceID: deviceID) {
                device.lastAccessAt = now
                try tx.save(device)
            }
            return try openSession(tx, userID: userID, deviceID: deviceID, workflow: workflow, now: now)
        }
    }

    public func endSession(_ sessionID: String) throws {
        let now = clock()
        // Losing a session's end to a power loss changes no credential.
        try store.write(durability: .relaxed) { tx in
            guard let session = try tx.session(sessionID) else { throw StoreError.notFound }
            try tx.endSession(sessionID, at: now)
            try audit(tx, session.userID, session.deviceID, "session.close", "ok")
        }
    }

    /// Records a flow-level event (an LDA check's outcome, a reset) in the audit log.
    public func record(userID: String?, deviceID: String?, action: String, outcome: String, detail: JSON? = nil) throws {
        try store.write { try audit($0, userID, deviceID, action, outcome, detail) }
    }

    // MARK: Helpers

    private func openSession(_ tx: any StoreWriter, userID: String, deviceID: String, workflow: String, now: Int64) throws -> String {
        let sessionID = SecureRandom.hex(bytes: 16)
        try tx.insert(SessionRecord(sessionID: sessionID, userID: userID, deviceID: deviceID, workflow: workflow, createdAt: now))
        try audit(tx, userID, deviceID, "session.open", "ok", ["workflow": .string(workflow)])
        return sessionID
    }

    private func storePassword(_ tx: any StoreWriter, userID: String, hash: String) throws {
        try tx.insert(PasswordRecord(userID: userID, hash: hash, createdAt: clock()))
        try tx.prunePasswords(userID: userID, keep: max(1, settings.historyDepth))
        guard var user = try tx.user(userID) else { throw StoreError.notFound }
        user.passwordExpired = false
        try tx.update(user)
    }

    private func codeRecord(userID: String, code: String, now: Int64) throws -> ActivationCodeRecord {
        ActivationCodeRecord(
            userID: userID, codeHash: try settings.hasher.hash(code), verificationKey: ActivationCodes.newVerificationKey(),
            createdAt: now, expiresAt: now + settings.activationCodeLifetimeSeconds)
    }

    private func isExpired(_ user: UserRecord, _ current: PasswordRecord?, now: Int64) -> Bool {
        if user.passwordExpired { return true }
        guard settings.passwordLifetimeDays > 0, let current else { return false }
        return now - current.createdAt >= Int64(settings.passwordLifetimeDays) * 86_400
    }

    private func audit(_ tx: any StoreWriter, _ userID: String?, _ deviceID: String?, _ action: String, _ outcome: String, _ detail: JSON? = nil) throws {
        try tx.append(
            AuditEntry(at: clock(), userID: userID, deviceID: deviceID, action: action, outcome: outcome, detail: detail?.serialized()))
    }

    static func status(for reason: BlockReason?) -> Int? {
        switch reason {
        case nil: nil
        case .passwordAttempts: 141
        case .activationAttempts, .admin: 138
        }
    }

    /// User ids: 1 to 128 characters, no control characters, no surrounding spaces.
    public static func checkUserID(_ userID: String) throws {
        guard !userID.isEmpty, userID.count <= 128, userID.first?.isWhitespace == false, userID.last?.isWhitespace == false,
            !userID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw CredentialError("user id must be 1 to 128 characters without control characters or surrounding spaces") }
    }
}
