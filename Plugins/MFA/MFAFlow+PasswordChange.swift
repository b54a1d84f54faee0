import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// A logged-in user changing a password they know (challengeMode 2, seed
/// 001's table; the SDK's update-credentials chain):
/// `getAllChallenges(userName)` → `onCredentialsAvailableForUpdate {options}`
/// → `initiateUpdateFlowForCredential("Password")` → `getPassword` (2, the
/// policy in `info`) → `updatePassword(current, new, 2)` →
/// `onUpdateCredentialResponse`, then, as the SDK does after any change,
/// `onUserLoggedOff` and `getUser`: the user logs in with the new password.
/// The rules are mode 1's (policy 190, history 164) and the current password
/// counts attempts as a login does (102; none left: 153, logged off).
extension MFAFlow {
    static let passwordCredential = "Password"

    /// The logged-in user, when `userName` is that user.
    func changingUser(_ userName: String) throws(FlowHostError) -> (userID: String, sessionID: String) {
        guard case .loggedIn(let userID, let sessionID) = stage, userID == userName else {
            throw FlowHostError(.notAllowedNow, message: host.text("{userID} is not logged in on this device", in: "mfa", ["userID": userName]))
        }
        return (userID, sessionID)
    }

    func getAllChallenges(_ userName: String) throws(FlowHostError) {
        let (userID, _) = try changingUser(userName)
        let state = try host.call(Services.CredentialsUserState(userID: userID, deviceID: deviceID))
        let options: JSON = state?.hasPassword == true ? [.string(Self.passwordCredential)] : []
        host.emit(
            "onCredentialsAvailableForUpdate",
            ["userID": .string(userID), "options": options, "error": SDKPayload.noError])
    }

    func initiateUpdateFlowForCredential(_ credentialType: String) throws(FlowHostError) {
        guard case .loggedIn(let userID, _) = stage else { throw FlowHostError(.notAllowedNow, message: host.text("No user is logged in on this device", in: "mfa")) }
        guard credentialType == Self.passwordCredential else {
            throw FlowHostError.invalidParams(field: "credentialType", reason: "\"Password\" is the one credential a user updates here")
        }
        let state = try host.call(Services.CredentialsUserState(userID: userID, deviceID: deviceID))
        guard let state, state.hasPassword else {
            throw FlowHostError(.nothingToChange, message: host.text("{userID} has no password to update", in: "mfa", ["userID": userID]), data: ["reason": "noPassword"])
        }
        changingPassword = true
        askForPasswordChange(userID, attemptsLeft: state.passwordAttemptsLeft)
    }

    func askForPasswordChange(_ userID: String, attemptsLeft: Int, status: Int = SDKCode.success, message: String = "Success", violations: JSON? = nil) {
        guard case .loggedIn(_, let sessionID) = stage else { return }
        host.emit(
            "getPassword",
            SDKPayload.event(
                status: status, message: message, sessionType: 1, sessionID: sessionID, workflow: Workflow.login,
                challengeInfo: [("RELID_PASSWORD_POLICY", host.passwordPolicy())],
                fields: ["userID": .string(userID), "challengeMode": .int(ChallengeMode.updateCredentials), "attemptsLeft": .int(attemptsLeft)]
            ).withPolicyViolations(violations))
    }

    /// `updatePassword(current, new, 2)`: the device proves its key, then the change.
    func changePassword(current: String, new: String) {
        guard case .loggedIn(let userID, _) = stage else { return }
        dialogue.call(Services.DeviceProve(userID: userID, deviceID: deviceID, reason: "password-change")) { [self] outcome in
            guard changingPassword else { return }
            guard case .success(.proven) = outcome else {
                return credentialUpdated(userID, status: SDKCode.deviceNotRegistered, message: host.text("This device could not prove it is registered for this user.", in: "mfa"))
            }
            let result: Services.PasswordUpdateOutcome
            do throws(FlowHostError) {
                result = try host.call(Services.PasswordUpdate(userID: userID, currentPassword: current, newPassword: new, deviceID: deviceID))
            } catch {
                // An answer outside the schema too: not `unexpected`, which returns a
                // logged-in user to getUser with the session still open.
                host.log(.error, "password.update failed: \(error.message)")
                return credentialUpdated(userID, status: SDKCode.serverFailed, message: host.text("The password could not be changed; try again.", in: "mfa"))
            }
            switch result {
            case .updated:
                credentialUpdated(userID, status: SDKCode.success, message: host.text("Your password has been changed; log in with the new one.", in: "mfa"))
            case .wrongCurrent(let attemptsLeft) where attemptsLeft > 0:
                askForPasswordChange(userID, attemptsLeft: attemptsLeft, status: SDKCode.authenticationFailed, message: host.text("The current password is wrong.", in: "mfa"))
            case .wrongCurrent, .refused(SDKCode.blockedByPasswordAttempts, _):
                credentialUpdated(userID, status: SDKCode.attemptsExhausted, message: host.text("Too many wrong attempts: you are logged off.", in: "mfa"))
            case .reused:
                askForPasswordChange(userID, attemptsLeft: attemptsLeft(userID), status: SDKCode.passwordReused, message: host.reusedPasswordMessage)
            case .policy(let problems, let violations):
                let refusal = PolicyRefusal(problems: problems, violations: violations, host: host)
                askForPasswordChange(
                    userID, attemptsLeft: attemptsLeft(userID), status: SDKCode.passwordPolicyViolated, message: refusal.message,
                    violations: refusal.violations)
            case .refused(let status, _):
                credentialUpdated(userID, status: status, message: host.text("Your account no longer allows this change.", in: "mfa"))
            }
        }
    }

    /// The password attempts left (the current one was right: the count is full again).
    func attemptsLeft(_ userID: String) -> Int {
        let state = (try? host.call(Services.CredentialsUserState(userID: userID, deviceID: deviceID))) ?? nil
        return state?.passwordAttemptsLeft ?? 0
    }

    /// `onUpdateCredentialResponse`; then, but for an expired challenge, the
    /// session ends (the SDK logs the user off after a change, and after 153).
    func credentialUpdated(_ userID: String, status: Int, message: String) {
        changingPassword = false
        host.emit(
            "onUpdateCredentialResponse",
            [
                "userID": .string(userID), "credType": .string(Self.passwordCredential),
                "status": ["statusCode": .int(status), "statusMessage": .string(message)],
                "error": SDKPayload.noError,
            ])
        if status != SDKCode.challengeExpired { _ = host.endSession(reason: status == SDKCode.success ? "password-changed" : "password-change-failed") }
    }
}
