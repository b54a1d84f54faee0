import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// Activation: the code, the device name, LDA consent, and its completion.
extension MFAFlow {
    func askForActivationCode(_ userID: String, attemptsLeft: Int, verificationKey: String?, status: Int = SDKCode.success, message: String? = nil) {
        stage = .awaitingActivationCode(userID: userID, verificationKey: verificationKey ?? "")
        let (status, message) =
            verificationKey == nil && status == SDKCode.success
            ? (
                SDKCode.activationCodeFailed,
                host.text("No valid activation code: it has expired or was used. Request a new one with resendActivationCode.", in: "mfa"))
            : (status, message ?? "Success")
        host.emit(
            "getActivationCode",
            SDKPayload.event(
                status: status, message: message, workflow: Workflow.activation,
                fields: [
                    "userID": .string(userID), "verificationKey": .string(verificationKey ?? ""), "attemptsLeft": .int(attemptsLeft),
                ]))
    }

    func setActivationCode(_ code: String) throws(FlowHostError) {
        guard case .awaitingActivationCode(let userID, let key) = stage else { throw wrongStage }
        switch try host.call(Services.ActivationVerify(userID: userID, code: code, deviceID: deviceID)) {
        case .accepted(let grant):
            stage = .awaitingDeviceName(userID: userID, grant: grant)
            host.emit(
                "getDeviceName",
                SDKPayload.event(workflow: Workflow.activation, fields: ["userID": .string(userID), "deviceName": .string(defaultDeviceName)]))
        case .wrong(let attemptsLeft):
            askForActivationCode(
                userID, attemptsLeft: attemptsLeft, verificationKey: key, status: SDKCode.activationCodeFailed, message: host.text("Invalid activation code.", in: "mfa"))
        case .expired(let attemptsLeft):
            askForActivationCode(
                userID, attemptsLeft: attemptsLeft, verificationKey: "", status: SDKCode.activationCodeFailed,
                message: host.text("The activation code has expired. Request a new one with resendActivationCode.", in: "mfa"))
        case .superseded(let attemptsLeft):
            askForActivationCode(
                userID, attemptsLeft: attemptsLeft, verificationKey: currentVerificationKey(userID) ?? key,
                status: SDKCode.activationCodeFailed, message: host.text("A newer activation code was sent; enter that one. This try did not count.", in: "mfa"))
        case .alreadyUsed(let attemptsLeft):
            askForActivationCode(
                userID, attemptsLeft: attemptsLeft, verificationKey: "", status: SDKCode.activationCodeFailed,
                message: host.text("This activation code was used already. Request a new one with resendActivationCode.", in: "mfa"))
        case .refused(let status, _):
            refused(status: status)
        }
    }

    /// The verification key of the user's current code, after a resend elsewhere.
    func currentVerificationKey(_ userID: String) -> String? {
        (try? userState(userID))??.verificationKey
    }

    func resendActivationCode() throws(FlowHostError) {
        guard case .awaitingActivationCode(let userID, _) = stage else { throw wrongStage }
        switch try host.call(Services.ActivationResend(userID: userID, deviceID: deviceID)) {
        case .sent(let verificationKey, let attemptsLeft):
            askForActivationCode(userID, attemptsLeft: attemptsLeft, verificationKey: verificationKey)
        case .tooSoon(let after):
            throw FlowHostError(.tooManyRequests, message: host.text("Too many requests: retry after {seconds} seconds", in: "mfa", ["seconds": String(after)]),
                data: ["retryAfterSeconds": .int(after)])
        case .refused(let status, _):
            refused(status: status)
        }
    }

    func setDeviceName(_ name: String) throws(FlowHostError) {
        guard case .awaitingDeviceName(let userID, let grant) = stage else { throw wrongStage }
        let trimmed = name.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.utf8.count <= 256 else {
            throw FlowHostError.invalidParams(field: "deviceName", reason: "must be 1 to 256 bytes")
        }
        chosenDeviceName = trimmed
        if let type = ldaCapabilities.first {
            stage = .awaitingConsent(userID: userID, grant: grant)
            host.emit(
                "getUserConsentForLDA",
                SDKPayload.event(
                    workflow: Workflow.activation,
                    fields: ["userID": .string(userID), "challengeMode": .int(ChallengeMode.set), "authenticationType": .int(type)]))
        } else {
            askForNewPassword(userID, grant: grant)
        }
    }

    func setUserConsent(_ enroll: Bool, authenticationType: Int) throws(FlowHostError) {
        guard case .awaitingConsent(let userID, let grant) = stage else { throw wrongStage }
        guard enroll else {
            audit(userID, "activation.lda-consent", "declined")
            return askForNewPassword(userID, grant: grant)
        }
        guard ldaCapabilities.contains(authenticationType) else {
            throw FlowHostError.invalidParams(field: "authenticationType", reason: "not one of this device's ldaCapabilities")
        }
        authenticateWithLDA(userID, type: authenticationType, reason: .enroll) { [self] ok in
            guard ok else {
                audit(userID, "activation.lda-enroll", "failed")
                stage = .awaitingConsent(userID: userID, grant: grant)
                host.emit(
                    "getUserConsentForLDA",
                    SDKPayload.event(
                        status: SDKCode.authenticationFailed, message: host.text("Authentication failed: the LDA check was cancelled or failed.", in: "mfa"),
                        workflow: Workflow.activation,
                        fields: [
                            "userID": .string(userID), "challengeMode": .int(ChallengeMode.set),
                            "authenticationType": .int(authenticationType),
                        ]))
                return
            }
            completeActivation(userID, grant: grant, password: nil, ldaType: authenticationType)
        }
    }

    /// The device's key first, then the activation that registers it.
    func completeActivation(_ userID: String, grant: String, password: String?, ldaType: Int?) {
        createDeviceKey(userID) { [self] key in
            completeActivation(userID, grant: grant, password: password, ldaType: ldaType, key: key)
        }
    }

    func completeActivation(_ userID: String, grant: String, password: String?, ldaType: Int?, key: Services.DeviceCreateKeyOutcome) {
        let call = Services.ActivationComplete(
            userID: userID, deviceID: deviceID, deviceName: chosenDeviceName, grant: grant, workflow: Workflow.activation, password: password,
            ldaType: ldaType, keyID: key.keyID, publicKey: key.publicKey, custody: key.custody)
        let outcome: Services.ActivationCompleteOutcome
        do {
            outcome = try host.call(call)
        } catch {
            host.log(.error, "activation of a user failed: \(error.message)")
            return askForUser(status: SDKCode.serverFailed, message: host.text("Activation failed on the server side; try again.", in: "mfa"))
        }
        switch outcome {
        case .completed(let sessionID):
            loggedIn(userID, sessionID: sessionID, workflow: Workflow.activation)
        case .grantInvalid:
            askForUser(status: SDKCode.activationCodeFailed, message: host.text("The accepted activation code is no longer valid; start again.", in: "mfa"))
        case .refused(let status, _):
            refused(status: status)
        }
    }
}
