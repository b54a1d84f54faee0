import FlowHostSDK

/// What the flow tells the user when a step is refused.
extension MFAFlow {
    static let wrongStage = FlowHostError(.notAllowedNow, message: "not expected now")
    static let forgotPasswordDisabledMessage = "Forgot password is not enabled on this server; ask an administrator."
    static let reusedMessage = FlowHost.reusedPasswordMessage

    static func blockedMessage(_ status: Int) -> String {
        status == SDKCode.blockedByPasswordAttempts
            ? "The user is blocked: too many wrong passwords. Unblock it with resetBlockedUserAccount (a code is sent to you), or ask an administrator."
            : "The user is blocked: too many wrong activation codes, or by an administrator."
    }

    static func refusalMessage(_ status: Int) -> String {
        switch status {
        case SDKCode.blockedByActivationAttempts, SDKCode.blockedByPasswordAttempts: blockedMessage(status)
        case SDKCode.featureNotSupported: forgotPasswordDisabledMessage
        case SDKCode.userAlreadyActive: "The user was activated meanwhile; log in instead."
        case SDKCode.deviceNotRegistered: "This device is not registered for this user (who is active on another device), or it could not prove it holds its key."
        default: "The server could not complete the request; try again."
        }
    }
}
