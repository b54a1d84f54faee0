import FlowHostAccounts
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
            return .completed(try sessionLedger.open(tx, userID: userID, deviceID: deviceID, workflow: workflow))
        }
    }
}
