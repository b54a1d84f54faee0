import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// The session's lifetime in the SDK's words. The host keeps the session
/// and its clocks and tells every flow (`session` notices); this flow logs
/// users in, so it tells the client, for the sessions it opened.
extension MFAFlow {
    static let sessionMethods = [
        FlowMethod("extendSessionIdleTimeout", summary: "Restarts the idle lifetime of the session; onSessionExtensionResponse follows.")
    ]

    static let sessionEvents = [
        FlowEvent(
            "onSessionTimeOutNotification", summary: "The session will end for idleness soon; extendSessionIdleTimeout restarts the clock."),
        FlowEvent("onSessionExtensionResponse", summary: "The answer to extendSessionIdleTimeout."),
        FlowEvent("onSessionTimeout", summary: "The session ended: idle too long, or its absolute lifetime reached."),
    ]

    func extendSessionIdleTimeout() throws(FlowHostError) {
        _ = try host.call(Services.SessionExtend())
        host.emit(
            "onSessionExtensionResponse",
            [
                "status": ["statusCode": .int(SDKCode.success), "statusMessage": "Success"],
                "error": SDKPayload.noError,
            ])
    }

    /// `expiring` and `timingOut` notices for the session this flow logged in.
    func sessionNotice(_ payload: JSON) {
        guard case .loggedIn(let userID, let sessionID) = stage, payload["sessionID"]?.stringValue == sessionID else { return }
        switch payload["event"]?.stringValue {
        case "expiring":
            host.emit(
                "onSessionTimeOutNotification",
                [
                    "userID": .string(userID), "message": .string(host.text("The session will end soon without activity.", in: "mfa")),
                    "timeLeftInSeconds": payload["secondsLeft"] ?? 0, "sessionCanBeExtended": 1,
                    "info": ["sessionType": 1, "currentWorkFlow": .string(loginWorkflow)],
                ])
        case "timingOut":
            let message =
                payload["reason"]?.stringValue == "lifetime"
                ? host.text("The session reached its maximum lifetime; log in again.", in: "mfa")
                : host.text("The session ended after a period without activity; log in again.", in: "mfa")
            host.emit("onSessionTimeout", ["message": .string(message)])
        default:
            return
        }
    }
}
