import FlowHostCore
import FlowHostCredentials
import FlowJSON

/// The SDK's `resetBlockedUserAccount`, offered to flows:
/// `account.sendRecoveryCode` (a code through the delivery channel to a user
/// blocked by password attempts, asked from one of their devices) and
/// `account.verifyRecoveryCode` (the right code unblocks).
enum RecoveryModule {
    static func register(_ recovery: AccountRecovery, in engine: HostEngine) {
        // The engine owns the services registered here: capturing it strongly would keep it alive forever.
        unowned let engine = engine
        offer(engine, "account.sendRecoveryCode", [string("userID", userID: true), string("deviceID")]) { _, p in
            CredentialsModule.sent(try recovery.sendCode(try p.string("userID"), deviceID: try p.string("deviceID")))
        }

        offer(engine, "account.verifyRecoveryCode", [string("userID", userID: true), string("code"), string("deviceID")]) { _, p in
            switch try recovery.verifyCode(try p.string("userID"), code: try p.string("code"), deviceID: try p.string("deviceID")) {
            case .unblocked: return ["outcome": "unblocked"]
            case .wrong(let left): return ["outcome": "wrong", "attemptsLeft": .int(left)]
            case .noCode: return ["outcome": "noCode"]
            case .refused(let refusal): return CredentialsModule.refused(refusal)
            }
        }
    }
}
