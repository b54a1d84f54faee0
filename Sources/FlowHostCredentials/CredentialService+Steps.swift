import FlowHostAccounts
import FlowHostDelivery
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// The credentials domain's transaction-level steps, shared by the
/// activation of a first device (`CredentialService`) and of an additional
/// one (`AdditionalDeviceActivation`): sending a code, spending a grant,
/// registering a device, counting a wrong answer. Each runs inside the
/// caller's write transaction (`sendCode` opens its own).
extension CredentialService {
    /// One path for every code a client asks for: the state check (`refusal`),
    /// the rate limits, the previous code replaced, the new one stored and
    /// sealed into the outbox in one transaction, delivered after the commit.
    /// `sent` records the success and returns the attempts the code allows.
    func sendCode(
        _ userID: String, deviceID: String, forDevice: String?, purpose: String = ActivationCodeRecord.activation, action: String,
        refusal: (any StoreReader, UserRecord, String) throws -> Refusal?,
        replacePrevious: (any StoreWriter, Int64) throws -> Void,
        sent: (any StoreWriter, UserRecord) throws -> Int
    ) throws -> ResendOutcome {
        let now = clock()
        let code = ActivationCodes.newCode()
        var record = try codeRecord(userID: userID, code: code, now: now)
        record.forDevice = forDevice
        record.purpose = purpose
        let message = CodeMessage(userID: userID, activationCode: code, verificationKey: record.verificationKey, expiresAt: record.expiresAt)
        let (outcome, outboxID): (ResendOutcome, Int64?) = try write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            if let refused = try refusal(tx, user, deviceID) {
                try audit.count(tx, userID, action, refused.name)
                return (.refused(refused), nil)
            }
            if let wait = try resendWait(tx, &user, action: action, now: now) {
                return (.tooSoon(retryAfterSeconds: wait), nil)
            }
            try replacePrevious(tx, now)
            try tx.insert(record)
            user.lastResendAt = now
            user.resendCount += 1
            try tx.update(user)
            let outboxID = try delivery.enqueue(message, in: tx, at: now)
            let attemptsLeft = try sent(tx, user)
            return (.sent(verificationKey: record.verificationKey, attemptsLeft: attemptsLeft), outboxID)
        }
        if let outboxID { delivery.committed(outboxID: outboxID) }
        return outcome
    }

    /// Spends the one-time grant that accepting a code for `purpose` gave a
    /// dialogue: false when it is unknown, spent, older than a code's
    /// lifetime, or from a code for another purpose.
    func spendGrant(
        _ tx: any StoreWriter, userID: String, grant: String, purpose: String = ActivationCodeRecord.activation, now: Int64
    ) throws -> Bool {
        guard
            let codeID = try tx.activationGrant(
                userID: userID, grantHash: ActivationGrant.hash(grant), purpose: purpose,
                acceptedSince: now - settings.activationCodeLifetimeSeconds)
        else { return false }
        return try tx.spendActivationGrant(codeID: codeID, at: now)
    }

    /// The device's registration and its new key, in the activation's transaction.
    func registerDevice(
        _ tx: any StoreWriter, userID: String, deviceID: String, name: String, ldaType: Int?, key: NewDeviceKey, now: Int64
    ) throws {
        let existing = try tx.device(userID: userID, deviceID: deviceID)
        try tx.save(
            DeviceRecord(
                userID: userID, deviceID: deviceID, name: name, status: .active, ldaType: ldaType, createdAt: existing?.createdAt ?? now,
                lastAccessAt: now))
        try devices.register(tx, userID: userID, deviceID: deviceID, keyID: key.keyID, publicKey: key.publicKey, custody: key.custody)
    }

    /// The limits on codes a client asks for: an interval between two, and a
    /// cap per code lifetime. Returns the seconds to wait (and counts the
    /// refusal), or nil when a code may be sent (the window is then opened
    /// in `user`, which the caller saves).
    func resendWait(_ tx: any StoreWriter, _ user: inout UserRecord, action: String, now: Int64) throws -> Int64? {
        if let last = user.lastResendAt, now - last < settings.resendIntervalSeconds {
            try audit.count(tx, user.userID, action, "rate-limited")
            return settings.resendIntervalSeconds - (now - last)
        }
        let lifetime = settings.activationCodeLifetimeSeconds
        if let start = user.resendWindowStart, now - start < lifetime {
            if user.resendCount >= settings.maxResendsPerCodeLifetime {
                try audit.count(tx, user.userID, action, "capped")
                return start + lifetime - now
            }
        } else {
            user.resendWindowStart = now
            user.resendCount = 0
        }
        return nil
    }
    /// A wrong answer: one attempt fewer, and a block when none are left.
    /// Returns the attempts left, or nil when the user is now blocked.
    func recordFailure(
        _ tx: any StoreWriter, _ user: inout UserRecord, _ counter: WritableKeyPath<UserRecord, Int>, blocking reason: BlockReason,
        deviceID: String, action: String
    ) throws -> Int? {
        user[keyPath: counter] = max(0, user[keyPath: counter] - 1)
        if user[keyPath: counter] == 0 { user.blockReason = reason }
        try tx.update(user)
        try audit.row(tx, user.userID, deviceID, action, user.blockReason == nil ? "wrong" : "blocked",
                  ["attemptsLeft": .int(user[keyPath: counter])])
        if user.blockReason != nil { if try sessionLedger.endAll(tx, userID: user.userID, reason: "blocked") { feedAppended = true } }
        return user.blockReason == nil ? user[keyPath: counter] : nil
    }

    func codeRecord(userID: String, code: String, now: Int64) throws -> ActivationCodeRecord {
        ActivationCodeRecord(
            userID: userID, codeHash: try settings.hasher.hash(code), verificationKey: ActivationCodes.newVerificationKey(),
            createdAt: now, expiresAt: now + settings.activationCodeLifetimeSeconds)
    }
}
