import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// `forgotPassword(userID)` (the SDK's "Forgot Password Flow"): offered by
/// `getPassword` 0 when `ENABLE_FORGOT_PASSWORD` is "true". The device
/// proves its key, a code goes through the delivery channel and
/// `getActivationCode` asks for it (`resendActivationCode` sends another,
/// the device proving its key again); then `getUserConsentForLDA` (a device
/// with LDA) or `getPassword` 1 (policy and history), and the reset logs
/// the user in (`onUserLoggedIn`, `currentWorkFlow` `ForgotCredentials`).
/// The host's `account.*ForgotPassword*` services decide who may reset and
/// what a reset does to the user's other sessions and counters.
extension MFAFlow {
    var isResetConsentOpen: Bool { if case .awaitingResetConsent = stage { true } else { false } }
    var isResetPasswordOpen: Bool { if case .awaitingResetPassword = stage { true } else { false } }

    func forgotPassword(_ requested: String?) throws(FlowHostError) {
        guard forgotPasswordEnabled else { throw FlowHostError.sdk(SDKCode.featureNotSupported, forgotPasswordDisabledMessage) }
        guard case .awaitingPassword(let userID, let proof, _) = stage else {
            throw FlowHostError(.notAllowedNow, message: host.text("forgotPassword answers getPassword with challengeMode 0 (a login's password)", in: "mfa"))
        }
        if let requested, !requested.isEmpty, requested != userID {
            throw FlowHostError.invalidParams(field: "userID", reason: host.text("not the user getPassword asks for", in: "mfa"))
        }
        proveThenSendResetCode(userID, proof: proof)
    }

    /// A code is sent only to a device that has just proved its key: the
    /// login's proof when it is still unspent, else a fresh one.
    func proveThenSendResetCode(_ userID: String, proof: String?) {
        guard let proof else {
            return proveDevice(userID) { [self] outcome in
                guard case .proven(let fresh) = outcome else {
                    return askForUser(status: SDKCode.deviceNotRegistered, message: host.text("This device could not prove it is registered for this user.", in: "mfa"))
                }
                proveThenSendResetCode(userID, proof: fresh)
            }
        }
        let outcome: Services.ActivationResendOutcome
        do { outcome = try host.call(Services.AccountSendForgotPasswordCode(userID: userID, deviceID: deviceID, proof: proof)) } catch {
            host.log(.error, "sending a reset code failed: \(error.message)")
            return askForUser(status: SDKCode.serverFailed, message: host.text("The server could not complete the request; try again.", in: "mfa"))
        }
        switch outcome {
        case .sent(let verificationKey, let attemptsLeft):
            askForResetCode(userID, attemptsLeft: attemptsLeft, verificationKey: verificationKey)
        case .tooSoon(let after):
            // The proof is spent whatever the answer, so this cannot be a sync refusal that leaves getPassword open.
            askForResetCode(
                userID, attemptsLeft: 0, verificationKey: "", status: SDKCode.activationCodeFailed,
                message: host.text("Too many requests: retry after {seconds} seconds with resendActivationCode.", in: "mfa", ["seconds": String(after)]))
        case .refused(let status, _):
            refused(status: status, userID: userID)
        }
    }

    func askForResetCode(_ userID: String, attemptsLeft: Int, verificationKey: String, status: Int = SDKCode.success, message: String = "Success") {
        stage = .awaitingResetCode(userID: userID, verificationKey: verificationKey)
        host.emit(
            "getActivationCode",
            SDKPayload.event(
                status: status, message: message, workflow: Workflow.forgotCredentials,
                fields: ["userID": .string(userID), "verificationKey": .string(verificationKey), "attemptsLeft": .int(attemptsLeft)]))
    }

    func setResetCode(_ code: String, userID: String, verificationKey: String) throws(FlowHostError) {
        switch try host.call(Services.AccountVerifyForgotPasswordCode(userID: userID, code: code, deviceID: deviceID)) {
        case .accepted(let grant):
            askForResetCredential(userID, grant: grant)
        case .wrong(let attemptsLeft):
            askForResetCode(userID, attemptsLeft: attemptsLeft, verificationKey: verificationKey, status: SDKCode.activationCodeFailed, message: host.text("Invalid code.", in: "mfa"))
        case .noCode:
            askForResetCode(
                userID, attemptsLeft: 0, verificationKey: "", status: SDKCode.activationCodeFailed,
                message: host.text("No valid code: it has expired, was replaced or ran out of tries. Request a new one with resendActivationCode.", in: "mfa"))
        case .refused(let status, _):
            refused(status: status, userID: userID)
        }
    }

    /// LDA consent on a device that declared a capability, else a new password.
    func askForResetCredential(_ userID: String, grant: String, status: Int = SDKCode.success, message: String = "Success") {
        guard let type = ldaCapabilities.first else { return askForResetPassword(userID, grant: grant) }
        stage = .awaitingResetConsent(userID: userID, grant: grant)
        host.emit(
            "getUserConsentForLDA",
            SDKPayload.event(
                status: status, message: message, workflow: Workflow.forgotCredentials,
                fields: ["userID": .string(userID), "challengeMode": .int(ChallengeMode.set), "authenticationType": .int(type)]))
    }

    func askForResetPassword(
        _ userID: String, grant: String, status: Int = SDKCode.success, message: String = "Success", violations: JSON? = nil
    ) {
        askForPassword(
            userID, mode: ChallengeMode.set, attemptsLeft: 0, status: status, message: message, workflow: Workflow.forgotCredentials,
            violations: violations)
        stage = .awaitingResetPassword(userID: userID, grant: grant)
    }

    func setResetConsent(_ enroll: Bool, authenticationType: Int) throws(FlowHostError) {
        guard case .awaitingResetConsent(let userID, let grant) = stage else { throw wrongStage }
        guard enroll else { return askForResetPassword(userID, grant: grant) }
        guard ldaCapabilities.contains(authenticationType) else {
            throw FlowHostError.invalidParams(field: "authenticationType", reason: host.text("not one of this device's ldaCapabilities", in: "mfa"))
        }
        authenticateWithLDA(userID, type: authenticationType, reason: .enroll) { [self] ok in
            guard ok else {
                return askForResetCredential(
                    userID, grant: grant, status: SDKCode.authenticationFailed,
                    message: host.text("Authentication failed: the LDA check was cancelled or failed.", in: "mfa"))
            }
            completeReset(userID, grant: grant, password: nil, ldaType: authenticationType)
        }
    }

    func setResetPassword(_ password: String) throws(FlowHostError) {
        guard case .awaitingResetPassword(let userID, let grant) = stage else { throw wrongStage }
        switch try host.call(Services.PasswordCheck(userID: userID, password: password)) {
        case .acceptable:
            completeReset(userID, grant: grant, password: password, ldaType: nil)
        case .reused:
            askForResetPassword(userID, grant: grant, status: SDKCode.passwordReused, message: host.reusedPasswordMessage)
        case .policy(let problems, let violations):
            let refusal = PolicyRefusal(problems: problems, violations: violations, host: host)
            askForResetPassword(userID, grant: grant, status: SDKCode.passwordPolicyViolated, message: refusal.message, violations: refusal.violations)
        }
    }

    /// The device proves its key again (the reset opens a session), then the host resets.
    func completeReset(_ userID: String, grant: String, password: String?, ldaType: Int?) {
        proveDevice(userID) { [self] outcome in
            guard case .proven(let proof) = outcome else {
                return askForUser(status: SDKCode.deviceNotRegistered, message: host.text("This device could not prove it is registered for this user.", in: "mfa"))
            }
            let call = Services.AccountCompleteForgotPassword(
                userID: userID, deviceID: deviceID, grant: grant, proof: proof, password: password, ldaType: ldaType)
            let result: Services.AccountCompleteForgotPasswordOutcome
            do throws(FlowHostError) { result = try host.call(call) } catch {
                host.log(.error, "completing a password reset failed: \(error.message)")
                return askForUser(status: SDKCode.serverFailed, message: host.text("The reset failed on the server side; try again.", in: "mfa"))
            }
            switch result {
            case .completed(let sessionID):
                loggedIn(userID, sessionID: sessionID, workflow: Workflow.forgotCredentials)
            case .grantInvalid:
                askForUser(status: SDKCode.activationCodeFailed, message: host.text("The accepted code is no longer valid; start again.", in: "mfa"))
            case .refused(let status, _):
                refused(status: status, userID: userID)
            }
        }
    }
}
