import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// `stepup.authenticate`: the seed's table, from how the user logged in
/// (the host's session) and what is enrolled.
/// - logged in with a password → `getPassword` (the caller's challengeMode);
/// - logged in with LDA, LDA enrolled → the platform's LDA check; if the
///   client cancels: `getPassword` without an error when a password is
///   enrolled, else the outcome `ldaCancelled` (error 131 to the client);
/// - with `method: "password"` (the LDA toggle's verification): the
///   password when the user has one, else LDA (no fallback);
/// - with `method: "lda"` (signing at level 1): LDA first whenever it is
///   enrolled, the password as the fallback;
/// - with `method: "serverBiometric"` (signing at level 4, seed 000's IDV
///   server biometric): the client's `platform/verifyServerBiometric`, and
///   nothing else: no password or device LDA stands in for it;
/// - `authenticated` says how (`verifiedBy`: lda, password, serverBiometric);
/// - every success also proves the device key.
/// Outcomes: authenticated, exhausted (153), expired (110), ldaCancelled
/// (131), biometricUnavailable, biometricCancelled, biometricFailed,
/// refused (the device could not prove itself), cancelled.
extension StepUpFlow {
    func serve(_ name: String, params: JSON, call: UInt64) {
        let method = params["method"]?.stringValue ?? "auto"
        guard ["auto", "password", "lda", "serverBiometric"].contains(method) else {
            host.complete(call, .failure(FlowHostError.invalidParams(field: "method", reason: "auto, password, lda or serverBiometric")))
            return
        }
        guard let session = host.session, let user = session["userID"]?.stringValue else {
            host.complete(call, .failure(FlowHostError(.notAllowedNow, message: host.text("No user is logged in on this device", in: "step-up"))))
            return
        }
        let state: Services.CredentialsUserStateOutcome?
        do throws(FlowHostError) { state = try host.call(Services.CredentialsUserState(userID: user, deviceID: deviceID)) } catch {
            host.complete(call, .failure(error))
            return
        }
        let mode = params["challengeMode"]?.intValue ?? ChallengeMode.stepUp
        let dialogue = host.beginDialogue(serving: call)
        current = StepUp(dialogue: dialogue, userID: user, challengeMode: mode, attemptsLeft: state?.passwordAttemptsLeft ?? 0)
        if method == "serverBiometric" { return verifyServerBiometric(call, user: user, reason: params["reason"]?.stringValue ?? "step-up") }
        let loggedInWithLDA = session["factors"]?.elements.contains { $0.stringValue == "lda" } == true
        let hasPassword = state?.hasPassword == true
        let startWithLDA =
            switch method {
            case "password": !hasPassword  // the LDA toggle's verification: LDA only for a user without a password
            case "lda": true  // signing at level 1: LDA first whenever it is enrolled
            default: loggedInWithLDA  // the seed's table
            }
        guard startWithLDA, let ldaType = state?.ldaType else { return askForPassword(status: SDKCode.success) }
        // A WebAuthn device's assertion with UV is the LDA check and the proof at once (spec §14).
        if proofVerifiesUser { return proveVerifyingUser(call, user: user, hasPassword: hasPassword) }
        dialogue.authenticateWithLDA(
            userID: user, type: ldaType, reason: params["reason"]?.stringValue.flatMap(FlowHost.LDAReason.init(rawValue:)) ?? .stepUp) { [self] check in
            guard check != .abandoned else { return }
            if check == .passed {
                proveThenFinish(call, user: user, verifiedBy: "lda")
            } else if hasPassword {
                askForPassword(status: SDKCode.success)  // the seed's seamless fallback: no error
            } else {
                finish(call, .ldaCancelled)
            }
        }
    }

    func askForPassword(status: Int, message: String = "Success") {
        guard let step = current else { return }
        host.emit(
            "getPassword",
            SDKPayload.event(
                status: status, message: message, workflow: Workflow.login, challengeInfo: [("ENABLE_FORGOT_PASSWORD", "false")],
                fields: ["userID": .string(step.userID), "challengeMode": .int(step.challengeMode), "attemptsLeft": .int(step.attemptsLeft)]))
    }

    func setPassword(_ password: String, mode: Int) throws(FlowHostError) {
        guard let step = current, step.challengeMode == mode else { throw FlowHostError(.notAllowedNow, message: host.text("no step-up in progress", in: "step-up")) }
        let call = step.call
        step.dialogue.call(Services.DeviceProve(userID: step.userID, deviceID: deviceID, reason: "step-up")) { [self] outcome in
            guard case .success(.proven(let proof, _, _, _)) = outcome else { return finish(call, .refused(status: SDKCode.deviceNotRegistered)) }
            let result: Services.PasswordStepUpOutcome
            do throws(FlowHostError) {
                result = try host.call(Services.PasswordStepUp(userID: step.userID, password: password, deviceID: deviceID, proof: proof))
            } catch {
                current = nil
                host.complete(call, .failure(error))
                return
            }
            switch result {
            case .accepted(expired: true, _):
                finish(call, .expired)
            case .accepted(expired: false, let token):
                reauthenticate(with: token)
                finish(call, .authenticated(verifiedBy: "password"))
            case .wrong(let left):
                current?.attemptsLeft = left
                askForPassword(status: SDKCode.authenticationFailed, message: host.text("Invalid password.", in: "step-up"))
            case .refused(status: SDKCode.blockedByPasswordAttempts, _):
                finish(call, .exhausted)
            case .refused(let status, _):
                finish(call, .refused(status: status))
            }
        }
    }

    /// Level 4: the server biometric, through the client (seed 000's IDV
    /// server biometric lives outside the host), then the device's key.
    func verifyServerBiometric(_ call: UInt64, user: String, reason: String) {
        guard let dialogue = current?.dialogue, dialogue.servedCall == call else { return }
        dialogue.verifyServerBiometric(userID: user, reason: reason) { [self] check in
            switch check {
            case .passed: proveThenFinish(call, user: user, verifiedBy: "serverBiometric")
            case .unavailable: finish(call, .biometricUnavailable)
            case .cancelled: finish(call, .biometricCancelled)
            case .failed: finish(call, .biometricFailed)
            case .abandoned: return
            }
        }
    }

    /// A factor passed without a password: the device proves its key, then the step-up succeeds.
    func proveThenFinish(_ call: UInt64, user: String, verifiedBy: String) {
        guard let dialogue = current?.dialogue, dialogue.servedCall == call else { return }
        dialogue.call(Services.DeviceProve(userID: user, deviceID: deviceID, reason: "step-up-lda")) { [self] outcome in
            if case .success(.proven(_, _, let token, _)) = outcome {
                reauthenticate(with: token)
                finish(call, .authenticated(verifiedBy: verifiedBy))
            } else {
                finish(call, .refused(status: SDKCode.deviceNotRegistered))
            }
        }
    }

    /// LDA on a WebAuthn device: one assertion with UV is the LDA check and
    /// the proof. Without UV (or refused), it is a failed LDA check: the
    /// password when the user has one, else the device is refused.
    func proveVerifyingUser(_ call: UInt64, user: String, hasPassword: Bool) {
        guard let dialogue = current?.dialogue, dialogue.servedCall == call else { return }
        dialogue.call(Services.DeviceProve(userID: user, deviceID: deviceID, reason: "step-up-lda", userVerification: "required")) {
            [self] outcome in
            if case .success(.proven(_, _, let token, true)) = outcome {
                reauthenticate(with: token)
                finish(call, .authenticated(verifiedBy: "lda"))
            } else if case .failure(let error) = outcome, error.isCancellation {
                return
            } else if hasPassword {
                askForPassword(status: SDKCode.success)
            } else {
                finish(call, .refused(status: SDKCode.deviceNotRegistered))
            }
        }
    }

    /// The step the session takes with a verification's evidence: its user
    /// proved who they are just now (services that change credentials, and
    /// signings above level 0, ask for a recent proof).
    func reauthenticate(with token: String?) {
        guard let token else { return host.log(.error, "a verification came without its reauthentication token") }
        do { _ = try host.call(Services.SessionReauthenticate(reauthentication: token)) } catch {
            host.log(.error, "re-authenticating the session failed: \(error.message)")
        }
    }

    func finish(_ call: UInt64, _ outcome: Services.StepupAuthenticateOutcome) {
        current = nil
        host.complete(call, .success(outcome.result))
    }
}
