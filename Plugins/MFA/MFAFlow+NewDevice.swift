import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// A known user on a device not registered for them: the `device-activation`
/// flow runs that device's whole dialogue (`deviceactivation.join`); this
/// flow only hands over and maps how it ended.
extension MFAFlow {
    func joinAsNewDevice(_ userID: String) {
        stage = .awaitingNewDevice(userID: userID)
        dialogue.call(Services.DeviceactivationJoin(userID: userID, deviceName: defaultDeviceName)) { [self] outcome in
            switch outcome {
            case .success(.completed(let sessionID, let workflow)): loggedIn(userID, sessionID: sessionID, workflow: workflow)
            case .success(.refused(let status)): refused(status: status)
            case .success(.stopped(let status, let message)): askForUser(status: status, message: message)
            case .failure(let error) where error.isCancellation:
                return  // abandoned by a reset: nothing to say
            case .failure(let error) where error.code == .methodNotFound:
                // No device-activation flow loaded: the device cannot join this way.
                audit(userID, "login.device", "not-registered")
                askForUser(status: SDKCode.deviceNotRegistered, message: refusalMessage(SDKCode.deviceNotRegistered))
            case .failure(let error):
                host.log(.error, "device activation failed: \(error.message)")
                askForUser(status: SDKCode.serverFailed, message: host.text("The server could not complete the request; try again.", in: "mfa"))
            }
        }
    }
}
