import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// The `lda-toggle` flow: a logged-in user lists the LDA types this device
/// has and turns one on or off (seed 003).
///
/// Enable: the password again (step-up, challengeMode 5) → consent
/// (`getUserConsentForLDA`, 16) → the platform's LDA check → enrolled.
/// Disable: the password again (step-up, 15; LDA for a user without one) →
/// a new password (`getPassword`, 14, seed 003's flow chart) → removed.
/// Either ends with `onDeviceAuthManagementStatus`. The verification is the
/// `step-up` flow's service, not a copy; the change is the host's
/// `authenticators` domain, which requires that fresh verification.
///
/// Touched only on the host's loop thread.
final class LDAToggleFlow: Flow {
    let host: FlowHost
    var deviceID = ""
    var ldaCapabilities: [Int] = []
    /// The toggle in progress, if any (one at a time). Replacing or clearing
    /// it ends its dialogue: what that started reports to no one.
    var toggle: Toggle? {
        didSet { if oldValue?.dialogue !== toggle?.dialogue { oldValue?.dialogue.end() } }
    }

    struct Toggle {
        let dialogue: Dialogue
        let userID: String
        let ldaType: Int
        let enable: Bool
        var stage = Stage.verifying
    }

    enum Stage {
        case verifying
        case awaitingConsent
        case checkingLDA
        case awaitingNewPassword
        case changing
    }

    init(host: FlowHost, config: JSON) throws(FlowHostError) {
        self.host = host
        if let key = config.keys.first { throw FlowHostError.invalidParams(field: "flows.lda-toggle.\(key)", reason: "unknown key") }
    }

    func start() {
        let device = host.sessionInfo["device"] ?? .object()
        deviceID = device["deviceID"]?.stringValue ?? ""
        ldaCapabilities = device["ldaCapabilities"]?.elements.compactMap(\.intValue) ?? []
    }

    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? {
        switch method {
        case "getDeviceAuthenticationDetails": return try details()
        case "manageDeviceAuthenticationModes":
            try manage(enable: try params.requiredBool("isEnabled"), type: try params.requiredInt("authenticationType"))
        case "setUserConsentForLDA":
            try consent(try params.requiredBool("shouldEnrollLDA"), type: try params.requiredInt("authenticationType"))
        case "setPassword": try newPassword(try params.requiredString("password"), mode: try params.requiredInt("challengeMode"))
        default: throw FlowHostError.methodNotFound
        }
        return nil
    }

    /// The LDA type enrolled for `userID` on this device, if any.
    func enrolledType(_ userID: String) throws(FlowHostError) -> (ldaType: Int?, hasPassword: Bool) {
        let state = try host.call(Services.CredentialsUserState(userID: userID, deviceID: deviceID))
        return (state?.ldaType, state?.hasPassword == true)
    }

    /// `getDeviceAuthenticationDetails()`: each LDA type this device declared
    /// (and the enrolled one, should the client no longer declare it, so it
    /// can still be turned off): the seed's list of `{authenticationType, isEnabled}`.
    func details() throws(FlowHostError) -> JSON {
        let user = try host.loggedInUser()
        let enrolled = try enrolledType(user).ldaType
        var types = ldaCapabilities
        if let enrolled, !types.contains(enrolled) { types.append(enrolled) }
        return .array(types.map { ["authenticationType": .int($0), "isEnabled": .bool($0 == enrolled)] })
    }

    /// What the host tells: the session ended (the toggle cannot go on), or
    /// the toggle's own challenge expired or was abandoned.
    func notified(topic: String, payload: JSON) {
        switch topic {
        case "session" where payload["event"]?.stringValue == "ended":
            toggle?.dialogue.end(abandoning: true)
            toggle = nil
        case "challenge.expired":
            guard toggle != nil else { return }
            report(status: SDKCode.challengeExpired, message: host.text("The challenge expired unanswered; nothing changed.", in: "lda-toggle"))
        case "challenge.cancelled":
            toggle = nil  // abandoned (a reset): nothing to say
        default:
            return
        }
    }
}
