import FlowHostSDK
import FlowJSON

/// A known user on a device not registered for them: the `device-activation`
/// flow runs that device's whole dialogue (`deviceactivation.join`); this
/// flow only hands over and maps how it ended.
extension MFAFlow {
    func joinAsNewDevice(_ userID: String) {
        stage = .awaitingNewDevice(userID: userID)
        dialogue.call("deviceactivation.join", ["userID": .string(userID), "deviceName": .string(defaultDeviceName)]) { [self] outcome in
            switch outcome {
            case .success(let result):
                switch result["outcome"]?.stringValue {
                case "completed":
                    loggedIn(userID, sessionID: result["sessionID"]?.stringValue ?? "", workflow: result["workflow"]?.stringValue ?? Workflow.login)
                case "refused": refused(result)
                case "stopped": askForUser(status: result["status"]?.intValue ?? SDKCode.serverFailed, message: result["message"]?.stringValue ?? "Stopped.")
                default: unexpected("deviceactivation.join", result)
                }
            case .failure(let error) where error.code == .requestCancelled:
                return  // abandoned by a reset: nothing to say
            case .failure(let error) where error.code == .methodNotFound:
                // No device-activation flow loaded: the device cannot join this way.
                audit(userID, "login.device", "not-registered")
                askForUser(status: SDKCode.deviceNotRegistered, message: Self.refusalMessage(SDKCode.deviceNotRegistered))
            case .failure(let error):
                host.log(.error, "device activation failed: \(error.message)")
                askForUser(status: SDKCode.serverFailed, message: "The server could not complete the request; try again.")
            }
        }
    }
}
