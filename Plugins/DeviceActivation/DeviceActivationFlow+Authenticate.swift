import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// Approved (or the code accepted): this device's own authentication (LDA
/// consent and the platform's check, or the user's password), its new key,
/// and the registration, which uses the approval or the grant once.
extension DeviceActivationFlow {
    func authenticate(_ authorization: Authorization) {
        guard let current = joining else { return }
        if let type = ldaCapabilities.first {
            joining?.stage = .awaitingConsent(authorization)
            host.emit(
                "getUserConsentForLDA",
                SDKPayload.event(
                    workflow: Self.workflow,
                    fields: ["userID": .string(current.userID), "challengeMode": .int(ChallengeMode.set), "authenticationType": .int(type)]))
        } else {
            askForPassword(current, authorization)
        }
    }

    /// The user's password on this device: verified (challengeMode 0), or,
    /// for a user who has none (activated with LDA only), a first one set
    /// here (challengeMode 1): a device is never asked to verify a factor
    /// that does not exist.
    func askForPassword(_ current: Joining, _ authorization: Authorization) {
        let state = (try? host.call(Services.CredentialsUserState(userID: current.userID, deviceID: deviceID))) ?? nil
        if state?.hasPassword == false {
            return askForNewPassword(current, authorization, mode: ChallengeMode.set)
        }
        joining?.stage = .awaitingPassword(authorization)
        host.emit(
            "getPassword",
            SDKPayload.event(
                workflow: Self.workflow, challengeInfo: [("ENABLE_FORGOT_PASSWORD", "false")],
                fields: [
                    "userID": .string(current.userID), "challengeMode": .int(ChallengeMode.verify),
                    "attemptsLeft": .int(state?.passwordAttemptsLeft ?? 0),
                ]))
    }

    /// A new password, with the policy: a first one (challengeMode 1) or an
    /// expired one's replacement (challengeMode 4, answered with updatePassword).
    func askForNewPassword(
        _ current: Joining, _ authorization: Authorization, mode: Int, status: Int = SDKCode.success, message: String = "Success",
        violations: JSON? = nil
    ) {
        joining?.stage = mode == ChallengeMode.set ? .awaitingNewPassword(authorization) : .awaitingExpiredUpdate(authorization)
        host.emit(
            "getPassword",
            SDKPayload.event(
                status: status, message: message, workflow: Self.workflow, challengeInfo: [("RELID_PASSWORD_POLICY", host.passwordPolicy())],
                fields: ["userID": .string(current.userID), "challengeMode": .int(mode), "attemptsLeft": 0]
            ).withPolicyViolations(violations))
    }

    func consent(_ current: Joining, _ authorization: Authorization, enroll: Bool, type: Int) throws(FlowHostError) {
        guard enroll else { return askForPassword(current, authorization) }
        guard ldaCapabilities.contains(type) else {
            throw FlowHostError.invalidParams(field: "authenticationType", reason: "not one of this device's ldaCapabilities")
        }
        joining?.stage = .working
        current.dialogue.authenticateWithLDA(userID: current.userID, type: type, reason: .enroll) { [self] check in
            guard check != .abandoned else { return }
            if check == .passed { complete(current, authorization, password: nil, ldaType: type) } else { askForPassword(current, authorization) }
        }
    }

    /// This device's key, then the registration (with the password checked
    /// and counted there, or the LDA enrolled) and a session.
    func complete(_ current: Joining, _ authorization: Authorization, password: String?, newPassword: String? = nil, ldaType: Int?) {
        joining?.stage = .working
        current.dialogue.createDeviceKey(userID: current.userID, deviceID: deviceID) { [self] made in
            if case .failure(let error) = made, error.data?["reason"]?.stringValue == "synced-credential" {
                return stop(
                    SDKCode.authenticationMethodNotSupported,
                    "This passkey is synced across devices; this service accepts only a credential bound to this device (webauthn.allowSynced).")
            }
            guard case .success(let key) = made else {
                return stop(SDKCode.serverFailed, host.text("The device key could not be created; try again.", in: "device-activation"))
            }
            var call = Services.NewdeviceComplete(
                userID: current.userID, deviceID: deviceID, deviceName: current.deviceName, workflow: Self.workflow, password: password,
                newPassword: newPassword, ldaType: ldaType, keyID: key.keyID, publicKey: key.publicKey, custody: key.custody)
            switch authorization {
            case .approval(let uuid): call.approval = uuid
            case .grant(let grant): call.grant = grant
            }
            let outcome: Services.NewdeviceCompleteOutcome
            do throws(FlowHostError) { outcome = try host.call(call) } catch {
                host.log(.error, "adding a device failed: \(error.message)")
                return stop(SDKCode.serverFailed, host.text("Adding this device failed on the server side; try again.", in: "device-activation"))
            }
            let mode = newPassword != nil && password != nil ? ChallengeMode.updateOnExpiry : ChallengeMode.set
            switch outcome {
            case .completed(let sessionID): finish(.completed(sessionID: sessionID, workflow: Self.workflow))
            case .wrong: stop(SDKCode.authenticationFailed, host.text("Invalid password: start adding this device again.", in: "device-activation"))
            case .expired:
                askForNewPassword(current, authorization, mode: ChallengeMode.updateOnExpiry, message: host.text("Your password has expired. Set a new one with updatePassword.", in: "device-activation"))
            case .policy(let problems, let violations):
                let refusal = PolicyRefusal(problems: problems, violations: violations, host: host)
                askForNewPassword(
                    current, authorization, mode: mode, status: SDKCode.passwordPolicyViolated, message: refusal.message,
                    violations: refusal.violations)
            case .reused:
                askForNewPassword(current, authorization, mode: mode, status: SDKCode.passwordReused, message: host.reusedPasswordMessage)
            case .refused(let status, _): refused(status: status)
            }
        }
    }
}
