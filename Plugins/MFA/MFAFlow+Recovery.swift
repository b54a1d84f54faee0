import FlowHostSDK
import FlowJSON

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
            throw FlowHostError(.notAllowedNow, message: "resetBlockedUserAccount follows getUser with status 141 (blocked by password attempts)")
        }
        try sendRecoveryCode(userID)
    }

    func sendRecoveryCode(_ userID: String) throws(FlowHostError) {
        let outcome = try host.call("account.sendRecoveryCode", ["userID": .string(userID), "deviceID": .string(deviceID)])
        switch outcome["outcome"]?.stringValue {
        case "sent":
            askForRecoveryCode(userID, attemptsLeft: outcome["attemptsLeft"]?.intValue ?? 0, verificationKey: outcome["verificationKey"]?.stringValue ?? "")
        case "tooSoon":
            let after = outcome["retryAfterSeconds"]?.intValue ?? 0
            throw FlowHostError(.tooManyRequests, message: "Too many requests: retry after \(after) seconds", data: ["retryAfterSeconds": .int(after)])
        case "refused" where outcome["reason"]?.stringValue == "not-blocked":
            try setUser(userID)  // unblocked meanwhile (the operator): the login goes on
        case "refused":
            refused(outcome, userID: userID)
        default:
            unexpected("account.sendRecoveryCode", outcome)
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
        let outcome = try host.call("account.verifyRecoveryCode", ["userID": .string(userID), "code": .string(code), "deviceID": .string(deviceID)])
        switch outcome["outcome"]?.stringValue {
        case "unblocked":
            recoverableUser = nil
            try setUser(userID)
        case "wrong":
            askForRecoveryCode(
                userID, attemptsLeft: outcome["attemptsLeft"]?.intValue ?? 0, verificationKey: verificationKey, status: SDKCode.activationCodeFailed,
                message: "Invalid code.")
        case "noCode":
            askForRecoveryCode(
                userID, attemptsLeft: 0, verificationKey: "", status: SDKCode.activationCodeFailed,
                message: "No valid code: it has expired, was replaced or ran out of tries. Request a new one with resendActivationCode.")
        case "refused" where outcome["reason"]?.stringValue == "not-blocked":
            recoverableUser = nil
            try setUser(userID)
        case "refused":
            refused(outcome, userID: userID)
        default:
            unexpected("account.verifyRecoveryCode", outcome)
        }
    }
}
