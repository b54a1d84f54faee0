import FlowHostAccounts
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
        try credentials.sendDeviceCode(userID, deviceID: deviceID, action: Self.action, refusal: refusal)
    }

    /// Checks a recovery code; the right one unblocks the user in the same transaction.
    public func verifyCode(_ userID: String, code: String, deviceID: String) throws -> RecoveryOutcome {
        let credentials = credentials
        let check = try credentials.checkDeviceCode(userID, code: code, deviceID: deviceID, action: Self.action, refusal: refusal) { tx, user in
            user.blockReason = nil
            user.passwordAttemptsLeft = credentials.settings.maxPasswordAttempts
            try tx.update(user)
            if try credentials.sessionLedger.endAll(tx, userID: userID, reason: "unblocked") { credentials.feedAppended = true }
        }
        switch check {
        case .accepted: return .unblocked
        case .wrong(let left): return .wrong(triesLeft: left)
        case .noCode: return .noCode
        case .refused(let refusal): return .refused(refusal)
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
