import FlowHostSDK
import FlowJSON

/// The fallback: a code that works on this device only, sent through the
/// operator's delivery; a wrong one asks again, with the tries left.
extension DeviceActivationFlow {
    func sendCode(_ current: Joining) {
        let outcome: JSON
        do {
            outcome = try host.call("newdevice.sendCode", ["userID": .string(current.userID), "deviceID": .string(deviceID)])
        } catch {
            host.log(.error, "sending a device code failed: \(error.message)")
            return stop(SDKCode.serverFailed, "The code could not be sent; try again.")
        }
        switch outcome["outcome"]?.stringValue {
        case "sent":
            let key = outcome["verificationKey"]?.stringValue ?? ""
            joining?.stage = .awaitingCode(verificationKey: key)
            askForCode(current, verificationKey: key, attemptsLeft: outcome["attemptsLeft"] ?? 0)
        case "tooSoon":
            stop(SDKCode.success, "A code was sent moments ago; try again in \(outcome["retryAfterSeconds"]?.intValue ?? 0) seconds.")
        case "refused": refused(outcome)
        default: unexpected("newdevice.sendCode", outcome)
        }
    }

    func askForCode(_ current: Joining, verificationKey: String, attemptsLeft: JSON, status: Int = SDKCode.success, message: String = "Success") {
        host.emit(
            "getActivationCode",
            SDKPayload.event(
                status: status, message: message, workflow: Self.workflow,
                fields: ["userID": .string(current.userID), "verificationKey": .string(verificationKey), "attemptsLeft": attemptsLeft]))
    }

    func verifyCode(_ current: Joining, code: String, verificationKey: String) throws(FlowHostError) {
        let outcome = try host.call(
            "newdevice.verifyCode", ["userID": .string(current.userID), "code": .string(code), "deviceID": .string(deviceID)])
        switch outcome["outcome"]?.stringValue {
        case "accepted":
            authenticate(.grant(outcome["grant"]?.stringValue ?? ""))
        case "wrong":
            askForCode(current, verificationKey: verificationKey, attemptsLeft: outcome["attemptsLeft"] ?? 0, status: SDKCode.activationCodeFailed, message: "Invalid activation code.")
        case "expired":
            stop(SDKCode.activationCodeFailed, "The code no longer works; ask for a new one.")
        case "refused": refused(outcome)
        default: unexpected("newdevice.verifyCode", outcome)
        }
    }
}
