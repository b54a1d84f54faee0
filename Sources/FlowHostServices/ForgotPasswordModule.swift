import FlowHostCore
import FlowHostCredentials
import FlowHostServiceTypes
import FlowHostVocabulary
import FlowJSON

/// The SDK's `forgotPassword`, offered to flows:
/// `account.sendForgotPasswordCode` (the code through the delivery channel,
/// after the device proved its key), `account.verifyForgotPasswordCode`
/// (the right code gives a grant) and `account.completeForgotPassword` (the
/// new password or LDA, the other sessions ended, a session opened).
enum ForgotPasswordModule {
    static func register(_ forgot: ForgotPassword, in engine: HostEngine) {
        unowned let hostSession = engine.session
        offer(engine, Services.AccountSendForgotPasswordCode.self) { _, call in
            Services.ActivationResendOutcome(try forgot.sendCode(call.userID, deviceID: call.deviceID, proof: call.proof))
        }

        offer(engine, Services.AccountVerifyForgotPasswordCode.self) { _, call in
            switch try forgot.verifyCode(call.userID, code: call.code, deviceID: call.deviceID) {
            case .accepted(let grant): .accepted(grant: grant)
            case .wrong(let left): .wrong(attemptsLeft: left)
            case .noCode: .noCode
            case .refused(let refusal): .refused(refusal)
            }
        }

        offer(engine, Services.AccountCompleteForgotPassword.self) { caller, call in
            let outcome: CompletionOutcome
            do {
                outcome = try forgot.complete(
                    call.userID, deviceID: call.deviceID, grant: call.grant, proof: call.proof, password: call.password, ldaType: call.ldaType)
            } catch is ForgotPassword.UnacceptablePassword {
                throw FlowHostError.invalidParams(field: "password", reason: "breaks the password policy or history (password.check says which)")
            }
            switch outcome {
            case .completed(let session):
                hostSession.begin(
                    userID: call.userID, sessionID: session.sessionID, feedPosition: session.feedPosition,
                    factors: [call.ldaType == nil ? "password" : "lda"], ldaType: call.ldaType, openedBy: caller)
                return .completed(sessionID: session.sessionID)
            case .grantInvalid: return .grantInvalid
            case .refused(let refusal): return .refused(refusal)
            }
        }
    }
}
