import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// The `data-signing` flow (seed 000): `authenticateUserAndSignData` →
/// the authentication its level asks for (the `step-up` flow's service,
/// challengeMode 12) → a signature with the device's key over a canonical
/// message that anyone can check later → `onAuthenticateUserAndSignData`.
///
/// | authLevel, authenticatorType | authentication |
/// |---|---|
/// | 0, 0 | none |
/// | 1, 0 | LDA when enrolled, the password as fallback (or alone) |
/// | 4, 1 | LDA when enrolled and the password when set (both factors) |
///
/// Touched only on the host's loop thread.
final class DataSigningFlow: Flow {
    static let supportedPairs: Set<[Int]> = [[0, 0], [1, 0], [4, 1]]
    static let maxPayload = 500
    static let maxReason = 100

    let host: FlowHost
    var deviceID = ""
    /// The signing in progress, if any (one at a time). Replacing or
    /// clearing it ends its dialogue: what that started reports to no one.
    var signing: Signing? {
        didSet { if oldValue?.dialogue !== signing?.dialogue { oldValue?.dialogue.end() } }
    }

    struct Signing {
        let dialogue: Dialogue
        let userID: String
        let payload: String
        let reason: String
        let authLevel: Int
        let authenticatorType: Int
    }

    init(host: FlowHost, config: JSON) throws(FlowHostError) {
        self.host = host
        if let key = config.keys.first { throw FlowHostError.invalidParams(field: "flows.data-signing.\(key)", reason: "unknown key") }
    }

    func start() {
        deviceID = host.sessionInfo["device"]?["deviceID"]?.stringValue ?? ""
    }

    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? {
        switch method {
        case "authenticateUserAndSignData":
            try authenticate(
                payload: try params.requiredString("payload"), level: try params.requiredInt("authLevel"), type: try params.requiredInt("authenticatorType"),
                reason: try params.requiredString("reason"))
            return nil
        case "resetAuthenticateUserAndSignDataState":
            reset()
            return nil
        case "verifyDataSignature":
            return try verify(params)
        default:
            throw FlowHostError.methodNotFound
        }
    }

    /// The session ended (a logoff, a timeout): a signing cannot go on without it.
    func notified(topic: String, payload: JSON) {
        guard topic == "session", payload["event"]?.stringValue == "ended" else { return }
        reset()
    }

    func reset() {
        // The step-up call, its challenge and requests end; nothing is signed. Nothing in progress: harmless.
        signing?.dialogue.end(abandoning: true)
        signing = nil
    }

    /// Beyond the SDK: whether a signature holds (no login needed: a
    /// signature is for anyone to check).
    func verify(_ params: JSON) throws(FlowHostError) -> JSON {
        let receipt = params["receipt"].flatMap { $0.isNull ? nil : $0 }
        let id = params["dataSignatureID"].flatMap { $0.isNull ? nil : $0.stringValue }
        guard receipt != nil || id != nil else {
            throw FlowHostError.invalidParams(field: "dataSignatureID", reason: "a dataSignatureID or a receipt is required")
        }
        return try host.call(Services.SignaturesVerify(dataSignatureID: id, receipt: receipt)).result
    }
}
