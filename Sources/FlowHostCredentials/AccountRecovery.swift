import FlowHostStore
import FlowHostVocabulary

/// The SDK's `resetBlockedUserAccount` (seed 002: the way out of 141): a
/// user blocked by password attempts unblocks by proving a factor out of
/// band, a fresh code through the delivery channel, as at activation. Only
/// the password block is lifted this way, and only from a device registered
/// to the user: an operator's block and an activation-code block (138) stay
/// the operator's (`admin unblock`). The code is a device code (hashed at
/// rest, 3 tries of its own, rate-limited like a resend), so a stranger who
/// asks for codes can neither block the user further nor guess one for long.
/// Unblocking restores the password attempts and ends any session left; the
/// user then logs in with the password as before.
///
/// Used from one thread at a time, like the `CredentialService` it wraps.
public final class AccountRecovery {
    let credentials: CredentialService

    public init(_ credentials: CredentialService) { self.credentials = credentials }

    static let action = "account.recovery"

    /// Who may recover here: a user blocked by password attempts, on one of their registered devices.
    func refusal(_ tx: any StoreReader, _ user: UserRecord, _ deviceID: String) throws -> Refusal? {
        guard user.blockReason == .passwordAttempts else {
            return user.blockReason.map(Refusal.blocked) ?? .notBlocked
        }
        guard let device = try tx.device(userID: user.userID, deviceID: deviceID), device.status == .active else {
            return .notRegisteredOnDevice
        }
        return nil
    }

    /// A recovery code to the user's delivery channel.
    public func sendCode(_ userID: String, deviceID: String) throws -> ResendOutcome {
        try credentials.sendCode(
            userID, deviceID: deviceID, forDevice: deviceID, action: Self.action, refusal: refusal,
            replacePrevious: { tx, now in
                if let previous = try tx.deviceCode(userID: userID, deviceID: deviceID, now: now), let id = previous.id {
                    _ = try tx.recordDeviceCodeMiss(id: id, limit: 0, at: now)  // replaced: it stops working
                }
            },
            sent: { tx, _ in
                try self.credentials.audit.row(tx, userID, deviceID, Self.action, "sent")
                return AdditionalDeviceActivation.deviceCodeTries
            })
    }

    /// Checks a recovery code; the right one unblocks the user in the same transaction.
    public func verifyCode(_ userID: String, code: String, deviceID: String) throws -> RecoveryOutcome {
        let now = credentials.clock()
        let typed = ActivationCodes.normalize(code)
        let live = try credentials.store.read { try $0.deviceCode(userID: userID, deviceID: deviceID, now: now) }
        let matches = live.map { credentials.settings.hasher.verify(typed, against: $0.codeHash) } ?? false
        return try credentials.write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            if let refused = try refusal(tx, user, deviceID) {
                try credentials.audit.count(tx, userID, Self.action, refused.name)
                return .refused(refused)
            }
            guard let current = try tx.deviceCode(userID: userID, deviceID: deviceID, now: now), let id = current.id, id == live?.id else {
                try credentials.audit.count(tx, userID, Self.action, "no-code")
                return .noCode
            }
            guard matches else {
                let left = try tx.recordDeviceCodeMiss(id: id, limit: AdditionalDeviceActivation.deviceCodeTries, at: now)
                try credentials.audit.row(tx, userID, deviceID, Self.action, "wrong", ["triesLeft": .int(left)])
                return left > 0 ? .wrong(triesLeft: left) : .noCode
            }
            // Spent like any code; the grant it records is never handed out (unblocking is this step's whole effect).
            guard try tx.acceptActivationCode(id: id, at: now, grantHash: ActivationGrant.hash(SecureRandom.hex(bytes: 32))) else {
                return .noCode
            }
            user.blockReason = nil
            user.passwordAttemptsLeft = credentials.settings.maxPasswordAttempts
            try tx.update(user)
            if try credentials.sessionLedger.endAll(tx, userID: userID, reason: "unblocked") { credentials.feedAppended = true }
            try credentials.audit.row(tx, userID, deviceID, Self.action, "unblocked")
            return .unblocked
        }
    }
}

/// How a recovery code check ended.
public enum RecoveryOutcome: Sendable, Equatable {
    case unblocked
    case wrong(triesLeft: Int)
    /// No live code: never sent, replaced, expired, or its tries spent.
    case noCode
    case refused(Refusal)
}
