import FlowHostDelivery
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// Activation codes: verification, the client's resend, and completion.
extension CredentialService {
    /// Checks a typed code. The current code and the codes that resends
    /// superseded (still unexpired) are hashed outside any transaction; the
    /// outcome is then decided inside one, against the state as it is then.
    public func verifyActivationCode(_ userID: String, code: String, deviceID: String) throws -> ActivationOutcome {
        let now = clock()
        let typed = ActivationCodes.normalize(code)
        guard
            let (user, live, current) = try store.read({ tx in
                try tx.user(userID).map {
                    ($0, try tx.liveActivationCodes(userID: userID, now: now, limit: settings.maxResendsPerCodeLifetime + 2),
                     try tx.latestActivationCode(userID: userID))
                }
            })
        else { throw StoreError.notFound }
        // A user who cannot activate now costs no hashing; the check is made again below.
        let matched =
            user.blockReason == nil && user.status == .pending ? live.first { settings.hasher.verify(typed, against: $0.codeHash) } : nil
        return try write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            if let refusal = try activationRefusal(tx, user, deviceID: deviceID) {
                try audit.count(tx, userID, "activation.verify", refusal.name)
                return .refused(refusal)
            }
            let latest = try tx.latestActivationCode(userID: userID)
            if let matched, let id = matched.id {
                if id == latest?.id, matched.expiresAt > now {
                    let grant = SecureRandom.hex(bytes: 32)
                    if try tx.acceptActivationCode(id: id, at: now, grantHash: ActivationGrant.hash(grant)) {
                        try audit.row(tx, userID, deviceID, "activation.verify", "ok")
                        return .accepted(grant: grant)
                    }
                }
                if matched.expiresAt <= now {
                    try audit.count(tx, userID, "activation.verify", "expired")
                    return .expired(attemptsLeft: user.activationAttemptsLeft)
                }
                // Right, but no longer current: replaced by a newer code, or
                // accepted meanwhile by another device. Neither costs an attempt.
                if let newer = latest?.id, newer > id {
                    try audit.count(tx, userID, "activation.verify", "superseded")
                    return .superseded(attemptsLeft: user.activationAttemptsLeft)
                }
                try audit.count(tx, userID, "activation.verify", "already-used")
                return .alreadyUsed(attemptsLeft: user.activationAttemptsLeft)
            }
            if latest?.id != current?.id {
                // A resend landed between the read and now: the new code was
                // not among those checked, so this try is not held against the user.
                try audit.count(tx, userID, "activation.verify", "superseded")
                return .superseded(attemptsLeft: user.activationAttemptsLeft)
            }
            if let latest, latest.expiresAt <= now {
                try audit.count(tx, userID, "activation.verify", "expired")
                return .expired(attemptsLeft: user.activationAttemptsLeft)
            }
            if let left = try recordFailure(
                tx, &user, \.activationAttemptsLeft, blocking: .activationAttempts, deviceID: deviceID, action: "activation.verify")
            {
                return .wrong(attemptsLeft: left)
            }
            return .refused(.blocked(.activationAttempts))
        }
    }

    /// A fresh code to the user's delivery channel, on a client's request.
    /// Rate-limited (an interval between two, and a cap per code lifetime);
    /// the attempt count carries over (a resend is not a way to more
    /// guesses), and the replaced code stops working without costing the
    /// user an attempt when they type it. The message is committed to the
    /// outbox first and delivered after the commit, outside any transaction.
    public func resendActivationCode(_ userID: String, deviceID: String) throws -> ResendOutcome {
        try sendCode(
            userID, deviceID: deviceID, forDevice: nil, action: "activation.resend", refusal: activationRefusal,
            replacePrevious: { tx, now in try tx.supersedeActivationCodes(userID: userID, at: now) },
            sent: { tx, user in
                try self.audit.row(
                    tx, userID, deviceID, "activation.resend", "ok", ["resendsLeft": .int(self.settings.maxResendsPerCodeLifetime - user.resendCount)])
                return user.activationAttemptsLeft
            })
    }

    /// The end of activation on a device: the credential the user chose (a
    /// password, checked already with `checkNewPassword`, or an LDA
    /// enrollment), the device registration and a session, in one step.
    /// It needs the grant that accepting the code gave this dialogue, and a
    /// user who is still pending and not blocked at this moment.
    /// The device's new key is registered in the same transaction.
    public func completeActivation(
        _ userID: String, deviceID: String, deviceName: String, grant: String, password: String?, ldaType: Int?, key: NewDeviceKey,
        workflow: String
    ) throws -> CompletionOutcome {
        let hash = try password.map { try settings.hasher.hash($0) }
        let now = clock()
        return try write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            if let refusal = try activationRefusal(tx, user, deviceID: deviceID) {
                try audit.count(tx, userID, "activation.complete", refusal.name)
                return .refused(refusal)
            }
            guard try spendGrant(tx, userID: userID, grant: grant, now: now) else {
                try audit.count(tx, userID, "activation.complete", "grant-invalid")
                return .grantInvalid
            }
            if let hash { try storePassword(tx, userID: userID, hash: hash) }
            try registerDevice(tx, userID: userID, deviceID: deviceID, name: deviceName, ldaType: ldaType, key: key, now: now)
            user = try tx.user(userID) ?? user
            user.status = .active
            user.activationAttemptsLeft = settings.maxActivationAttempts
            try tx.update(user)
            try audit.row(tx, userID, deviceID, "activation.complete", "ok",
                      ["credential": .string(ldaType == nil ? "password" : "lda"), "workflow": .string(workflow)])
            return .completed(sessionID: try sessionLedger.open(tx, userID: userID, deviceID: deviceID, workflow: workflow))
        }
    }

    /// An additional device, approved from one of the user's registered
    /// devices: the accepted approval (a notification the user answered on a
    /// proven device) is used once, in the same transaction that registers
    /// the device, its key and a session. The device's own authentication is
    /// the user's password (verified, counted) or an LDA enrollment.
    public func completeApprovedActivation(
        _ userID: String, deviceID: String, deviceName: String, authorization: NewDeviceAuthorization, password: String?, ldaType: Int?,
        key: NewDeviceKey, workflow: String
    ) throws -> ApprovedActivationOutcome {
        let now = clock()
        let (_, current) = try userAndPasswordForActivation(userID)
        let matches = password.map { typed in current.map { settings.hasher.verify(typed, against: $0.hash) } ?? false }
        return try write { tx in
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            if let reason = user.blockReason { return .refused(.blocked(reason)) }
            guard user.status == .active else { return .refused(.notRegisteredOnDevice) }
            if try tx.device(userID: userID, deviceID: deviceID)?.status == .active { return .refused(.alreadyActive) }
            let authorized: Bool
            switch authorization {
            case .approval(let uuid):
                authorized = try tx.consumeApproval(uuid, userID: userID, at: now)
            case .codeGrant(let grant):
                authorized = try spendGrant(tx, userID: userID, grant: grant, now: now)
            }
            guard authorized else {
                try audit.count(tx, userID, "activation.approved", "authorization-invalid")
                return .refused(.deviceNotProven)
            }
            if let matches, !matches || current == nil {
                var user = user
                if let left = try recordFailure(
                    tx, &user, \.passwordAttemptsLeft, blocking: .passwordAttempts, deviceID: deviceID, action: "activation.approved")
                {
                    // The approval stays used: a wrong password ends this attempt.
                    return .wrongPassword(attemptsLeft: left)
                }
                return .refused(.blocked(.passwordAttempts))
            }
            try registerDevice(tx, userID: userID, deviceID: deviceID, name: deviceName, ldaType: ldaType, key: key, now: now)
            let how: String = if case .approval = authorization { "approval" } else { "code" }
            try audit.row(tx, userID, deviceID, "activation.approved", "ok", ["authorization": .string(how), "workflow": .string(workflow)])
            return .completed(sessionID: try sessionLedger.open(tx, userID: userID, deviceID: deviceID, workflow: workflow))
        }
    }

    /// Device activation's fallback: a fresh code for an active user's new
    /// device, sealed into the outbox for delivery (as a resend is), rate-
    /// limited and capped the same way. The code works only on that device.
    public func sendDeviceCode(_ userID: String, deviceID: String) throws -> ResendOutcome {
        try sendCode(
            userID, deviceID: deviceID, forDevice: deviceID, action: "activation.device-code", refusal: newDeviceRefusal,
            replacePrevious: { tx, now in
                if let previous = try tx.deviceCode(userID: userID, deviceID: deviceID, now: now), let id = previous.id {
                    _ = try tx.recordDeviceCodeMiss(id: id, limit: 0, at: now)  // replaced: it stops working
                }
            },
            sent: { tx, _ in
                try self.audit.row(tx, userID, deviceID, "activation.device-code", "sent")
                return Self.deviceCodeTries
            })
    }

    /// One path for every code a client asks for: the state check (`refusal`),
    /// the rate limits, the previous code replaced, the new one stored and
    /// sealed into the outbox in one transaction, delivered after the commit.
    /// `sent` records the success and returns the attempts the code allows.
    private func sendCode(
        _ userID: String, deviceID: String, forDevice: String?, action: String,
        refusal: (any StoreReader, UserRecord, String) throws -> Refusal?,
        replacePrevious: (any StoreWriter, Int64) throws -> Void,
        sent: (any StoreWriter, UserRecord) throws -> Int
    ) throws -> ResendOutcome {
        let now = clock()
        let code = ActivationCodes.newCode()
        var record = try codeRecord(userID: userID, code: code, now: now)
        record.forDevice = forDevice
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

    /// Spends the one-time grant that accepting a code gave a dialogue: false
    /// when it is unknown, spent, or older than a code's lifetime.
    private func spendGrant(_ tx: any StoreWriter, userID: String, grant: String, now: Int64) throws -> Bool {
        guard
            let codeID = try tx.activationGrant(
                userID: userID, grantHash: ActivationGrant.hash(grant), acceptedSince: now - settings.activationCodeLifetimeSeconds)
        else { return false }
        return try tx.spendActivationGrant(codeID: codeID, at: now)
    }

    /// The device's registration and its new key, in the activation's transaction.
    private func registerDevice(
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
    private func resendWait(_ tx: any StoreWriter, _ user: inout UserRecord, action: String, now: Int64) throws -> Int64? {
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

    /// Wrong tries a device code allows before it stops working. They are
    /// the code's own: a stranger who asks for a code cannot block the user.
    public static let deviceCodeTries = 3

    /// Checks a device code: accepted gives the grant that completes this device's activation.
    public func verifyDeviceCode(_ userID: String, code: String, deviceID: String) throws -> ActivationOutcome {
        let now = clock()
        let typed = ActivationCodes.normalize(code)
        let live = try store.read { try $0.deviceCode(userID: userID, deviceID: deviceID, now: now) }
        let matches = live.map { settings.hasher.verify(typed, against: $0.codeHash) } ?? false
        return try write { tx in
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            if let refusal = try newDeviceRefusal(tx, user, deviceID: deviceID) {
                try audit.count(tx, userID, "activation.device-code", refusal.name)
                return .refused(refusal)
            }
            guard let current = try tx.deviceCode(userID: userID, deviceID: deviceID, now: now), let id = current.id,
                id == live?.id
            else {
                try audit.count(tx, userID, "activation.device-code", "no-code")
                return .expired(attemptsLeft: 0)
            }
            if matches {
                let grant = SecureRandom.hex(bytes: 32)
                guard try tx.acceptActivationCode(id: id, at: now, grantHash: ActivationGrant.hash(grant)) else { return .alreadyUsed(attemptsLeft: 0) }
                try audit.row(tx, userID, deviceID, "activation.device-code", "ok")
                return .accepted(grant: grant)
            }
            let left = try tx.recordDeviceCodeMiss(id: id, limit: Self.deviceCodeTries, at: now)
            try audit.row(tx, userID, deviceID, "activation.device-code", "wrong", ["triesLeft": .int(left)])
            return left > 0 ? .wrong(attemptsLeft: left) : .expired(attemptsLeft: 0)
        }
    }

    /// What a new device of an active user needs: the user active, not
    /// blocked, and this device not registered for them yet.
    func newDeviceRefusal(_ tx: any StoreReader, _ user: UserRecord, deviceID: String) throws -> Refusal? {
        if let reason = user.blockReason { return .blocked(reason) }
        guard user.status == .active else { return .notRegisteredOnDevice }
        if try tx.device(userID: user.userID, deviceID: deviceID)?.status == .active { return .alreadyActive }
        return nil
    }

    private func userAndPasswordForActivation(_ userID: String) throws -> (UserRecord, PasswordRecord?) {
        guard let found = try store.read({ tx in try tx.user(userID).map { ($0, try tx.passwords(userID: userID, limit: 1).first) } })
        else { throw StoreError.notFound }
        return found
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
}
