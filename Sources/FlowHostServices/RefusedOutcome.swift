import FlowHostCredentials
import FlowHostServiceTypes
import FlowHostVocabulary

extension RefusableOutcome {
    /// A credentials refusal as any service's `refused` outcome.
    static func refused(_ refusal: Refusal) -> Self { .refused(status: refusal.status, reason: refusal.name) }
}

extension Services.ActivationResendOutcome {
    /// A code sent (or not): `activation.resend`, `newdevice.sendCode` and `account.sendRecoveryCode` answer alike.
    init(_ outcome: ResendOutcome) {
        switch outcome {
        case .sent(let key, let left): self = .sent(verificationKey: key, attemptsLeft: left)
        case .tooSoon(let after): self = .tooSoon(retryAfterSeconds: Int(after))
        case .refused(let refusal): self = .refused(status: refusal.status, reason: refusal.name)
        }
    }
}
