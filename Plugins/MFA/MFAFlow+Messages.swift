import FlowHostSDK

/// What the flow tells the user when a step is refused, in the language the client set.
extension MFAFlow {
    var wrongStage: FlowHostError { FlowHostError(.notAllowedNow, message: host.text("not expected now", in: "mfa")) }
    var forgotPasswordDisabledMessage: String {
        host.text("Forgot password is not enabled on this server; ask an administrator.", in: "mfa")
    }

    func blockedMessage(_ status: Int) -> String {
        status == SDKCode.blockedByPasswordAttempts
            ? host.text(
                "The user is blocked: too many wrong passwords. Unblock it with resetBlockedUserAccount (a code is sent to you), or ask an administrator.",
                in: "mfa")
            : host.text("The user is blocked: too many wrong activation codes, or by an administrator.", in: "mfa")
    }

    func refusalMessage(_ status: Int) -> String {
        switch status {
        case SDKCode.blockedByActivationAttempts, SDKCode.blockedByPasswordAttempts: blockedMessage(status)
        case SDKCode.featureNotSupported: forgotPasswordDisabledMessage
        case SDKCode.userAlreadyActive: host.text("The user was activated meanwhile; log in instead.", in: "mfa")
        case SDKCode.deviceNotRegistered:
            host.text("This device is not registered for this user (who is active on another device), or it could not prove it holds its key.", in: "mfa")
        default: host.text("The server could not complete the request; try again.", in: "mfa")
        }
    }
}
