import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// The fallback: a code that works on this device only, sent through the
/// operator's delivery; a wrong one asks again, with the tries left.
extension DeviceActivationFlow {
    func sendCode(_ current: Joining) {
        let outcome: Services.NewdeviceSendCode.Outcome
        do {
            outcome = try host.call(Services.NewdeviceSendCode(userID: current.userID, deviceID: deviceID))
        } catch {
            host.log(.error, "sending a device code failed: \(error.message)")
            return stop(SDKCode.serverFailed, host.text("The code could not be sent; try again.", in: "device-activation"))
        }
        switch outcome {
        case .sent(let key, let attemptsLeft):
            joining?.stage = .awaitingCode(verificationKey: key)
            askForCode(current, verificationKey: key, attemptsLeft: .int(attemptsLeft))
        case .tooSoon(let after):
            stop(SDKCode.success, "A code was sent moments ago; try again in \(after) seconds.")
        case .refused(let status, _): refused(status: status)
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
        switch try host.call(Services.NewdeviceVerifyCode(userID: current.userID, code: code, deviceID: deviceID)) {
        case .accepted(let grant):
            authenticate(.grant(grant))
        case .wrong(let attemptsLeft):
            askForCode(
                current, verificationKey: verificationKey, attemptsLeft: .int(attemptsLeft), status: SDKCode.activationCodeFailed,
                message: host.text("Invalid activation code.", in: "device-activation"))
        case .expired:
            stop(SDKCode.activationCodeFailed, host.text("The code no longer works; ask for a new one.", in: "device-activation"))
        case .refused(let status, _): refused(status: status)
        }
    }
}
