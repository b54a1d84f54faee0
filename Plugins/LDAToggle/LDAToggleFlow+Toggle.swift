import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// `manageDeviceAuthenticationModes`: verify, then consent or a new
/// password, then the change, then `onDeviceAuthManagementStatus`.
extension LDAToggleFlow {
    static let cancelledByUser = (code: SDKCode.ldaConsentDeclined, text: MessageKey(context: "lda-toggle", id: "User cancelled LDA consent"))

    func manage(enable: Bool, type: Int) throws(FlowHostError) {
        let user = try host.loggedInUser()
        let (enrolled, _) = try enrolledType(user)
        if enable {
            guard ldaCapabilities.contains(type) else {
                throw Self.unchangeable(
                    "notSupported",
                    host.text(
                        "This device has no LDA of type {type} (its ldaCapabilities: {capabilities}).", in: "lda-toggle",
                        ["type": String(type), "capabilities": "\(ldaCapabilities)"]))
            }
            if enrolled == type { throw Self.unchangeable(
                    "alreadyEnabled", host.text("LDA type {type} is already enabled on this device.", in: "lda-toggle", ["type": String(type)])) }
            if let other = enrolled {
                throw Self.unchangeable(
                    "anotherTypeEnabled",
                    host.text(
                        "LDA type {type} is enabled on this device; disable it first (one LDA type per device).", in: "lda-toggle",
                        ["type": String(other)]))
            }
        } else {
            guard enrolled == type else {
                throw Self.unchangeable(
                    enrolled == nil && !ldaCapabilities.contains(type) ? "notSupported" : "alreadyDisabled",
                    host.text("LDA type {type} is not enabled on this device.", in: "lda-toggle", ["type": String(type)]))
            }
        }
        // A retry after the client dismissed the prompt: the host has cancelled the
        // old toggle's dialogue already; anything left of it goes too.
        toggle?.dialogue.end(abandoning: true)
        toggle = Toggle(dialogue: host.beginDialogue(), userID: user, ldaType: type, enable: enable)
        verify(enable: enable)
    }

    static func unchangeable(_ reason: String, _ message: String) -> FlowHostError {
        FlowHostError(.nothingToChange, message: message, data: ["reason": .string(reason)])
    }

    /// Step-up with the toggle's challenge mode: the password when the user
    /// has one (5 to enable, 15 to disable), LDA for a user without one.
    func verify(enable: Bool) {
        let mode = enable ? ChallengeMode.enableLDAVerify : ChallengeMode.disableLDAVerify
        guard let dialogue = toggle?.dialogue else { return }
        dialogue.stepUp(Services.StepupAuthenticate(challengeMode: mode, reason: "lda-toggle", method: "password")) { [self] outcome in
            guard let current = toggle else { return }
            switch outcome {
            case .failure(let error) where error.isCancellation:
                toggle = nil  // abandoned by a reset: nothing changed, nothing to say
            case .failure(let error):
                host.log(.error, "stepup.authenticate failed: \(error.message)")
                report(status: SDKCode.serverFailed, message: host.text("The verification failed on the server side; nothing changed.", in: "lda-toggle"))
            case .success(let result):
                verified(current, result)
            }
        }
    }

    /// The statuses and the session's end are StepUpOutcome's; the words are the toggle's.
    func verified(_ current: Toggle, _ outcome: StepUpOutcome) {
        let status = outcome.status
        switch outcome {
        case .authenticated:
            // Seed 003: enabling asks for consent (16); disabling sets a new password (14).
            if current.enable { askForConsent(current) } else { askForNewPassword(current) }
        case .exhausted: report(status: status, message: host.text("Too many wrong attempts: you are logged off.", in: "lda-toggle"))
        case .expired: report(status: status, message: host.text("Your password has expired: you are logged off.", in: "lda-toggle"))
        case .ldaCancelled:
            report(status: status, message: host.text("Local device authentication was cancelled; nothing changed.", in: "lda-toggle"), error: Self.cancelledByUser)
        case .refused: report(status: status, message: host.text("This device could not prove who you are; nothing changed.", in: "lda-toggle"))
        case .cancelled: report(status: status, message: host.text("The verification expired unanswered; nothing changed.", in: "lda-toggle"))
        case .biometricUnavailable, .biometricCancelled, .biometricFailed, .unknown:
            report(status: StepUpOutcome.unknown(nil).status, message: host.text("The verification failed on the server side; nothing changed.", in: "lda-toggle"))
        }
    }

    // MARK: Enable

    func askForConsent(_ current: Toggle) {
        toggle?.stage = .awaitingConsent
        host.emit(
            "getUserConsentForLDA",
            SDKPayload.event(
                workflow: Workflow.login,
                fields: [
                    "userID": .string(current.userID), "challengeMode": .int(ChallengeMode.enableLDAConsent),
                    "authenticationType": .int(current.ldaType),
                ]))
    }

    func consent(_ enroll: Bool, type: Int) throws(FlowHostError) {
        guard let current = toggle, current.stage == .awaitingConsent else { throw FlowHostError(.notAllowedNow, message: host.text("not expected now", in: "lda-toggle")) }
        guard type == current.ldaType else {
            throw FlowHostError.invalidParams(field: "authenticationType", reason: "the type asked about is \(current.ldaType)")
        }
        guard enroll else {
            return report(status: SDKCode.success, message: host.text("Consent was not given; nothing changed.", in: "lda-toggle"), error: Self.cancelledByUser)
        }
        toggle?.stage = .checkingLDA
        current.dialogue.authenticateWithLDA(userID: current.userID, type: type, reason: .enroll) { [self] check in
            switch check {
            case .abandoned: toggle = nil
            case .failed: report(status: SDKCode.success, message: host.text("The LDA check was cancelled or failed; nothing changed.", in: "lda-toggle"), error: Self.cancelledByUser)
            case .passed:
                change(Services.AuthenticatorsEnableLDA.service) { [self] () throws(FlowHostError) in
                    try host.call(Services.AuthenticatorsEnableLDA(userID: current.userID, deviceID: deviceID, ldaType: type))
                }
            }
        }
    }

    // MARK: Disable

    func disable(_ current: Toggle, newPassword: String?) {
        change(Services.AuthenticatorsDisableLDA.service) { [self] () throws(FlowHostError) in
            try host.call(Services.AuthenticatorsDisableLDA(userID: current.userID, deviceID: deviceID, newPassword: newPassword))
        }
    }

    func askForNewPassword(_ current: Toggle, status: Int = SDKCode.success, message: String = "Success", violations: JSON? = nil) {
        toggle?.stage = .awaitingNewPassword
        host.emit(
            "getPassword",
            SDKPayload.event(
                status: status, message: message, workflow: Workflow.login, challengeInfo: [("RELID_PASSWORD_POLICY", host.passwordPolicy())],
                fields: ["userID": .string(current.userID), "challengeMode": .int(ChallengeMode.setAfterLDADisable), "attemptsLeft": 0]
            ).withPolicyViolations(violations))
    }

    func newPassword(_ password: String, mode: Int) throws(FlowHostError) {
        guard let current = toggle, current.stage == .awaitingNewPassword, mode == ChallengeMode.setAfterLDADisable else {
            throw FlowHostError(.notAllowedNow, message: host.text("not expected now", in: "lda-toggle"))
        }
        disable(current, newPassword: password)
    }

    // MARK: The change, and the status

    /// `authenticators.enableLDA` or `…disableLDA` (the same answers), then the status.
    func change(_ service: String, _ call: () throws(FlowHostError) -> Services.AuthenticatorsEnableLDAOutcome) {
        guard let current = toggle else { return }
        toggle?.stage = .changing
        let outcome: Services.AuthenticatorsEnableLDAOutcome
        do throws(FlowHostError) { outcome = try call() } catch {
            host.log(.error, "\(service) failed: \(error.message)")
            return report(status: SDKCode.serverFailed, message: host.text("The change could not be made; nothing changed.", in: "lda-toggle"))
        }
        switch outcome {
        case .changed, .unchanged:
            report(status: SDKCode.success, message: current.enable
                    ? host.text("LDA type {ldaType} has been enabled.", in: "lda-toggle", ["ldaType": String(current.ldaType)])
                    : host.text("LDA type {ldaType} has been disabled.", in: "lda-toggle", ["ldaType": String(current.ldaType)]))
        case .passwordRequired:
            askForNewPassword(current)
        case .policy(let problems, let violations):
            let refusal = PolicyRefusal(problems: problems, violations: violations, host: host)
            askForNewPassword(current, status: SDKCode.passwordPolicyViolated, message: refusal.message, violations: refusal.violations)
        case .reused:
            askForNewPassword(current, status: SDKCode.passwordReused, message: host.reusedPasswordMessage)
        case .refused(let status, _):
            report(status: status, message: host.text("Your account no longer allows this change; nothing changed.", in: "lda-toggle"))
        }
    }

    /// `onDeviceAuthManagementStatus`; the toggle is over.
    func report(status: Int, message: String, error: (code: Int, text: MessageKey) = (0, MessageKey(context: "sdk", id: "Success"))) {
        guard let current = toggle else { return }
        toggle = nil
        host.emit(
            "onDeviceAuthManagementStatus",
            [
                "userID": .string(current.userID), "isEnabled": .bool(current.enable), "authenticationType": .int(current.ldaType),
                "status": ["statusCode": .int(status), "statusMessage": .string(message)],
                "error": ["longErrorCode": .int(error.code), "shortErrorCode": .int(error.code), "errorString": .string(host.text(error.text.id, in: error.text.context))],
            ])
    }
}
