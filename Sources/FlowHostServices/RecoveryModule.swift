import FlowHostCore
import FlowHostCredentials
import FlowHostServiceTypes
import FlowHostVocabulary
import FlowJSON

/// The SDK's `resetBlockedUserAccount`, offered to flows:
/// `account.sendRecoveryCode` (a code through the delivery channel to a user
/// blocked by password attempts, asked from one of their devices) and
/// `account.verifyRecoveryCode` (the right code unblocks).
enum RecoveryModule {
    static func register(_ recovery: AccountRecovery, in engine: HostEngine) {
        offer(engine, Services.AccountSendRecoveryCode.self) { _, call in
            Services.ActivationResendOutcome(try recovery.sendCode(call.userID, deviceID: call.deviceID))
        }

        offer(engine, Services.AccountVerifyRecoveryCode.self) { _, call in
            switch try recovery.verifyCode(call.userID, code: call.code, deviceID: call.deviceID) {
            case .unblocked: .unblocked
            case .wrong(let left): .wrong(attemptsLeft: left)
            case .noCode: .noCode
            case .refused(let refusal): .refused(refusal)
            }
        }
    }
}
