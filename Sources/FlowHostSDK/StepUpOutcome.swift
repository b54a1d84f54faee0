import FlowJSON
import FlowHostServiceTypes

/// What `stepup.authenticate` reports, as a closed set, and what each
/// outcome means to the SDK's events: the status a flow reports and
/// whether the session ends. Every flow that re-authenticates through
/// step-up maps its outcome here, so 110, 153 and 121 mean the same thing
/// in a notification action, an LDA toggle and a signing. The flow only
/// chooses its own words.
public enum StepUpOutcome: Equatable, Sendable {
    /// Verified: `verifiedBy` is `password`, `lda` or `serverBiometric`.
    case authenticated(verifiedBy: String)
    /// Wrong passwords to the last attempt (153; the session ends).
    case exhausted
    /// The password expired meanwhile (110; the session ends).
    case expired
    /// The user dismissed the platform's LDA prompt (100, with the flow's own error).
    case ldaCancelled
    /// The challenge expired unanswered or was replaced (121).
    case cancelled
    /// The device could not prove its key; `status` is the one the host gave.
    case refused(status: Int)
    /// Level 4: the client offers no server biometric (100, error 214).
    case biometricUnavailable
    /// Level 4: the user dismissed the capture (100).
    case biometricCancelled
    /// Level 4: the capture did not match (100).
    case biometricFailed
    /// An outcome this SDK does not know: treated as a server-side failure (114).
    case unknown(String?)

    /// The service's answer, read through its generated outcome type; an
    /// answer outside the schema is `.unknown`.
    public init(_ result: JSON) {
        do { self.init(try Services.StepupAuthenticateOutcome(result: result)) } catch { self = .unknown(result["outcome"]?.stringValue) }
    }

    public init(_ outcome: Services.StepupAuthenticateOutcome) {
        switch outcome {
        case .authenticated(let verifiedBy): self = .authenticated(verifiedBy: verifiedBy ?? "password")
        case .exhausted: self = .exhausted
        case .expired: self = .expired
        case .ldaCancelled: self = .ldaCancelled
        case .cancelled: self = .cancelled
        case .refused(let status): self = .refused(status: status ?? SDKCode.deviceNotRegistered)
        case .biometricUnavailable: self = .biometricUnavailable
        case .biometricCancelled: self = .biometricCancelled
        case .biometricFailed: self = .biometricFailed
        }
    }

    /// The SDK status the flow's event carries for this outcome.
    public var status: Int {
        switch self {
        case .authenticated, .ldaCancelled, .biometricUnavailable, .biometricCancelled, .biometricFailed: SDKCode.success
        case .exhausted: SDKCode.attemptsExhausted
        case .expired: SDKCode.passwordExpired
        case .cancelled: SDKCode.challengeExpired
        case .refused(let status): status
        case .unknown: SDKCode.serverFailed
        }
    }

    /// Whether the session ends after this outcome (the SDK logs the user off
    /// on 110 and 153). The host ends it, after the flow's report: the
    /// verifying service that found it says so, whatever flow asked.
    public var endsSession: Bool {
        switch self {
        case .exhausted, .expired: true
        default: false
        }
    }
}

extension FlowHost {
    /// Asks the logged-in user to prove who they are again, before something
    /// sensitive: the step-up of a flow that is not built in
    /// (`ChallengeMode.flowStepUp`). `reason`: the flow's word for what it
    /// guards; `method` as `stepup.authenticate` takes it (nil: the seed's
    /// table). `completion` runs once, as for `stepUp(_:completion:)`.
    @discardableResult
    public func stepUp(reason: String, method: String? = nil, completion: @escaping (Result<StepUpOutcome, FlowHostError>) -> Void) -> UInt64? {
        stepUp(Services.StepupAuthenticate(challengeMode: ChallengeMode.flowStepUp, reason: reason, method: method), completion: completion)
    }

    /// Re-authenticates through `stepup.authenticate`. `completion` runs once:
    /// with the outcome (if it ends the session, the host ends it right after
    /// the completion returns: the flow's report comes first, as the SDK's
    /// does); or with the call's failure (`.requestCancelled` when the
    /// dialogue was abandoned). Returns the call's id.
    @discardableResult
    public func stepUp(_ request: Services.StepupAuthenticate, completion: @escaping (Result<StepUpOutcome, FlowHostError>) -> Void) -> UInt64? {
        call(Services.StepupAuthenticate.service, request.params) { [self] result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success(let value):
                let outcome = StepUpOutcome(value)
                if case .unknown = outcome { log(.error, "stepup.authenticate gave an outcome this flow does not know") }
                completion(.success(outcome))
            }
        }
    }
}
