import FlowHostSDK

extension MFAFlow {
    static let base = #"{"type":"object","required":["challengeResponse","error"]}"#

    static let declaration = FlowDeclaration(
        name: "mfa", version: "1.0.0",
        methods: [
            FlowMethod(
                "setUser", summary: "Answers getUser with the user id.",
                params: [FlowParam("userName", .string, description: "The user id.", format: .userID)], answers: ["getUser"]),
            SDKAnswers.setActivationCode,
            SDKAnswers.resendActivationCode,
            FlowMethod(
                "setDeviceName", summary: "Answers getDeviceName with this device's name.",
                params: [FlowParam("deviceName", .string, format: .deviceName)], answers: ["getDeviceName"]),
            SDKAnswers.setUserConsentForLDA,
            SDKAnswers.setPassword,
            SDKAnswers.updatePassword,
            FlowMethod("resetAuthState", summary: "Abandons the flow before login; getUser follows."),
            FlowMethod(
                "logOff", summary: "Ends the user's session; onUserLoggedOff then getUser follow.",
                params: [FlowParam("userID", .string, format: .userID)]),
        ],
        events: [
            FlowEvent("getUser", summary: "Asks for the user id.", paramsSchema: base, challenge: true, resting: true),
            FlowEvent("getActivationCode", summary: "Asks for the activation code.", paramsSchema: base, challenge: true),
            FlowEvent("getDeviceName", summary: "Asks for this device's name.", paramsSchema: base, challenge: true),
            FlowEvent("getUserConsentForLDA", summary: "Asks whether to enroll LDA.", paramsSchema: base, challenge: true),
            FlowEvent("getPassword", summary: "Asks for a password (challengeMode says which).", paramsSchema: base, challenge: true),
            FlowEvent("onUserLoggedIn", summary: "The user is logged in; carries the session.", paramsSchema: base),
            FlowEvent("onUserLoggedOff", summary: "The session ended.", paramsSchema: base),
        ],
        uses: [
            "credentials.userState", "credentials.rememberedUsers", "activation.verify", "activation.resend", "activation.complete",
            "password.policy", "password.check", "password.login", "password.update", "session.open", "session.close", "audit.record",
            "device.createKey", "device.prove", "deviceactivation.join",
        ])
}
