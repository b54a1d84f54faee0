import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// Setting, verifying and replacing passwords (challengeModes 0, 1, 4).
extension MFAFlow {
    /// Activation's `getPassword` (mode 1): the grant waits with the stage.
    func askForNewPassword(_ userID: String, grant: String, status: Int = SDKCode.success, message: String = "Success", violations: JSON? = nil) {
        askForPassword(userID, mode: ChallengeMode.set, attemptsLeft: 0, status: status, message: message, violations: violations)
        stage = .awaitingNewPassword(userID: userID, grant: grant)
    }

    func askForPassword(
        _ userID: String, mode: Int, attemptsLeft: Int, status: Int = SDKCode.success, message: String = "Success", proof: String? = nil,
        bind: Bool = false, workflow: String? = nil, violations: JSON? = nil
    ) {
        switch mode {
        case ChallengeMode.set: stage = .awaitingNewPassword(userID: userID, grant: "")
        case ChallengeMode.updateOnExpiry: stage = .awaitingExpiredUpdate(userID: userID)
        default: stage = .awaitingPassword(userID: userID, proof: proof, bind: bind)
        }
        var info: [(String, String)] = []
        if mode != ChallengeMode.verify {
            info.append(("RELID_PASSWORD_POLICY", host.passwordPolicy()))
        } else {
            info.append(("ENABLE_FORGOT_PASSWORD", forgotPasswordEnabled ? "true" : "false"))
        }
        host.emit(
            "getPassword",
            SDKPayload.event(
                status: status, message: message, workflow: workflow ?? (mode == ChallengeMode.set ? Workflow.activation : Workflow.login),
                challengeInfo: info,
                fields: ["userID": .string(userID), "challengeMode": .int(mode), "attemptsLeft": .int(attemptsLeft)]
            ).withPolicyViolations(violations))
    }

    func setPassword(_ password: String, mode: Int) throws(FlowHostError) {
        switch stage {
        case .awaitingNewPassword(let userID, let grant):
            switch try host.call(Services.PasswordCheck(userID: userID, password: password)) {
            case .acceptable:
                completeActivation(userID, grant: grant, password: password, ldaType: nil)
            case .reused:
                askForNewPassword(userID, grant: grant, status: SDKCode.passwordReused, message: host.reusedPasswordMessage)
            case .policy(let problems, let violations):
                let refusal = PolicyRefusal(problems: problems, violations: violations, host: host)
                askForNewPassword(userID, grant: grant, status: SDKCode.passwordPolicyViolated, message: refusal.message, violations: refusal.violations)
            }
        case .awaitingPassword(let userID, let proof, let bind):
            if bind {
                // A device registered before keys: a new key, bound by this login if the password is right.
                let bindWith: (Services.DeviceCreateKeyOutcome) -> Void = { [self] key in
                    pendingBindKey = key
                    logIn(
                        Services.PasswordLogin(
                            userID: userID, password: password, deviceID: deviceID, workflow: Workflow.login, bindKeyID: key.keyID,
                            bindPublicKey: key.publicKey, bindCustody: key.custody))
                }
                if let key = pendingBindKey { bindWith(key) } else { createDeviceKey(userID, then: bindWith) }
            } else if let proof {
                logIn(Services.PasswordLogin(userID: userID, password: password, deviceID: deviceID, workflow: Workflow.login, proof: proof))
            } else {
                // The last proof was spent by a wrong try: prove again, then log in.
                proveDevice(userID) { [self] outcome in
                    guard case .proven(let fresh) = outcome else {
                        return askForUser(status: SDKCode.deviceNotRegistered, message: host.text("This device could not prove it is registered for this user.", in: "mfa"))
                    }
                    logIn(Services.PasswordLogin(userID: userID, password: password, deviceID: deviceID, workflow: Workflow.login, proof: fresh))
                }
            }
        case .awaitingExpiredUpdate:
            throw FlowHostError.sdk(
                SDKCode.invalidArguments, host.text("An expired password is replaced with updatePassword(currentPassword, newPassword, 4).", in: "mfa"))
        default:
            throw wrongStage
        }
    }

    /// `password.login` with the device's possession (`proof`, or a key to bind).
    func logIn(_ call: Services.PasswordLogin) {
        let userID = call.userID
        let outcome: Services.PasswordLoginOutcome
        do { outcome = try host.call(call) } catch {
            host.log(.error, "password login failed: \(error.message)")
            return askForUser(status: SDKCode.serverFailed, message: host.text("Login failed on the server side; try again.", in: "mfa"))
        }
        switch outcome {
        case .accepted(_, let sessionID):
            pendingBindKey = nil
            if let sessionID {
                loggedIn(userID, sessionID: sessionID, workflow: Workflow.login)
            } else {
                askForPassword(
                    userID, mode: ChallengeMode.updateOnExpiry, attemptsLeft: 0,
                    message: host.text("Your password has expired. Set a new one with updatePassword.", in: "mfa"))
            }
        case .wrong(let attemptsLeft):
            askForPassword(
                userID, mode: ChallengeMode.verify, attemptsLeft: attemptsLeft, status: SDKCode.authenticationFailed,
                message: host.text("Invalid password.", in: "mfa"), bind: pendingBindKey != nil)
        case .refused(let status, _):
            refused(status: status, userID: userID)
        }
    }

    func updatePassword(current: String, new: String) throws(FlowHostError) {
        guard case .awaitingExpiredUpdate(let userID) = stage else {
            throw FlowHostError.sdk(SDKCode.invalidArguments, "updatePassword answers getPassword with challengeMode 4 only.")
        }
        switch try host.call(Services.PasswordUpdate(userID: userID, currentPassword: current, newPassword: new, deviceID: deviceID)) {
        case .updated:
            openSession(userID, factor: "password")
        case .wrongCurrent(let attemptsLeft):
            askForPassword(
                userID, mode: ChallengeMode.updateOnExpiry, attemptsLeft: attemptsLeft, status: SDKCode.authenticationFailed,
                message: host.text("The current password is wrong.", in: "mfa"))
        case .reused:
            askForPassword(userID, mode: ChallengeMode.updateOnExpiry, attemptsLeft: 0, status: SDKCode.passwordReused, message: host.reusedPasswordMessage)
        case .policy(let problems, let violations):
            let refusal = PolicyRefusal(problems: problems, violations: violations, host: host)
            askForPassword(
                userID, mode: ChallengeMode.updateOnExpiry, attemptsLeft: 0, status: SDKCode.passwordPolicyViolated,
                message: refusal.message, violations: refusal.violations)
        case .refused(let status, _):
            refused(status: status, userID: userID)
        }
    }
}
