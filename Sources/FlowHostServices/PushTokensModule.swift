import FlowHostCore
import FlowHostCredentials
import FlowHostServiceTypes
import FlowHostVocabulary

/// Push tokens, offered to flows: `push.setToken`, the token of the device
/// the user is logged in on, on this host (a flow cannot set another
/// device's or another user's). The token's rules are checked here, so a
/// bad one is the caller's -32602 naming `token`, whichever flow asks.
enum PushTokensModule {
    static func register(_ tokens: PushTokens, in engine: HostEngine) {
        // The session reaches the name table these services live in: held strongly, neither would be freed.
        unowned let hostSession = engine.session
        let logger = engine.logger
        offer(engine, Services.PushSetToken.self) { _, call in
            guard hostSession.recentlyProved(userID: call.userID, deviceID: call.deviceID, within: nil) else {
                throw FlowHostError(.notAllowedNow, message: "a push token is set by the user logged in on its device, here")
            }
            if let problem = PushTokens.problem(call.token) { throw FlowHostError.invalidParams(field: "token", reason: problem) }
            switch try tokens.set(call.userID, deviceID: call.deviceID, token: call.token) {
            case .recorded(let replaced):
                logger.debug("push token \(PushTokens.fingerprint(call.token)) recorded for a device of \(call.userID)")
                return .recorded(replaced: replaced)
            case .notRegistered: return .notRegistered
            }
        }
    }
}
