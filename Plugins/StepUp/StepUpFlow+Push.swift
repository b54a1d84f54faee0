import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// `setDeviceToken(token)`: the SDK's void call, for the device the user is
/// logged in on. Its answer is the call's own: `null` once the host's
/// `push.setToken` recorded it (replacing the device's earlier token), a
/// token that breaks the rules is -32602 naming `token`, and no one logged
/// in is -32006. No event follows: the SDK's call has none.
extension StepUpFlow {
    func setDeviceToken(_ token: String) throws(FlowHostError) {
        let user = try host.loggedInUser()
        switch try host.call(Services.PushSetToken(userID: user, deviceID: deviceID, token: token)) {
        case .recorded: return
        case .notRegistered:
            throw FlowHostError(
                .notAllowedNow, message: host.text("This device is no longer registered for you: its push token was not recorded.", in: "step-up"))
        }
    }
}
