import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// `resetBlockedUserAccount()` (seed 002: the way out of 141): after
/// `getUser` with 141 for a user on one of their registered devices, a
/// fresh code goes through the delivery channel and `getActivationCode`
/// asks for it (`resendActivationCode` sends another); the right code
/// unblocks the user, who then logs in with the password as before
/// (`getPassword` 0, all attempts back). The host's `account.*` services
/// check who may recover; an operator's block stays the operator's.
extension MFAFlow {
    func resetBlockedUserAccount() throws(FlowHostError) {
        guard case .awaitingUser = stage, let userID = recoverableUser else {
            throw FlowHostError(.notAllowedNow, message: host.text("resetBlockedUserAccount follows getUser with status 141 (blocked by password attempts)", in: "mfa"))
        }
        try sendRecoveryCode(userID)
    }

    func sendRecoveryCode(_ userID: String) throws(FlowHostError) {
        switch try host.call(Services.AccountSendRecoveryCode(userID: userID, deviceID: deviceID)) {
        case .sent(let verificationKey, let attemptsLeft):
            askForRecoveryCode(userID, attemptsLeft: attemptsLeft, verificationKey: verificationKey)
        case .tooSoon(let after):
            throw FlowHostError(.tooManyRequests, message: host.text("Too many requests: retry after {seconds} seconds", in: "mfa", ["seconds": String(after)]), data: ["retryAfterSeconds": .int(after)])
        case .refused(_, "not-blocked"):
            try setUser(userID)  // unblocked meanwhile (the operator): the login goes on
        case .refused(let status, _):
            refused(status: status, userID: userID)
        }
    }

    func askForRecoveryCode(_ userID: String, attemptsLeft: Int, verificationKey: String, status: Int = SDKCode.success, message: String = "Success") {
        stage = .awaitingRecoveryCode(userID: userID, verificationKey: verificationKey)
        host.emit(
            "getActivationCode",
            SDKPayload.event(
                status: status, message: message, workflow: Workflow.login,
                fields: ["userID": .string(userID), "verificationKey": .string(verificationKey), "attemptsLeft": .int(attemptsLeft)]))
    }

    func setRecoveryCode(_ code: String, userID: String, verificationKey: String) throws(FlowHostError) {
        switch try host.call(Services.AccountVerifyRecoveryCode(userID: userID, code: code, deviceID: deviceID)) {
        case .unblocked:
            recoverableUser = nil
            try setUser(userID)
        case .wrong(let attemptsLeft):
            askForRecoveryCode(
                userID, attemptsLeft: attemptsLeft, verificationKey: verificationKey, status: SDKCode.activationCodeFailed, message: host.text("Invalid code.", in: "mfa"))
        case .noCode:
            askForRecoveryCode(
                userID, attemptsLeft: 0, verificationKey: "", status: SDKCode.activationCodeFailed,
                message: host.text("No valid code: it has expired, was replaced or ran out of tries. Request a new one with resendActivationCode.", in: "mfa"))
        case .refused(_, "not-blocked"):
            recoverableUser = nil
            try setUser(userID)
        case .refused(let status, _):
            refused(status: status, userID: userID)
        }
    }
}
