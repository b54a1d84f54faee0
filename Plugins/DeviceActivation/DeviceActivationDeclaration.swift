import FlowHostSDK

extension DeviceActivationFlow {
    static let workflow = "AdditionalDeviceActivation"

    static var declaration: FlowDeclaration {
        FlowDeclaration(
            name: "device-activation", version: "1.1.0",
            methods: [
                FlowMethod(
                    "performVerifyAuth", summary: "Answers addNewDeviceOptions: true asks the user's registered devices to approve; false cancels.",
                    params: [FlowParam("verifyAuthStatus", .boolean)], answers: ["addNewDeviceOptions"]),
                FlowMethod(
                    "fallbackNewDeviceActivationFlow", summary: "Answers addNewDeviceOptions: join with an activation code sent to the user instead.",
                    answers: ["addNewDeviceOptions"]),
                SDKAnswers.setActivationCode, SDKAnswers.resendActivationCode, SDKAnswers.setUserConsentForLDA, SDKAnswers.setPassword,
                SDKAnswers.updatePassword,
            ],
            events: [
                FlowEvent(
                    "addNewDeviceOptions", summary: "The user is active on other devices: how this one may join (newDeviceOptions, challengeInfo).",
                    challenge: true),
                FlowEvent("getActivationCode", summary: "The fallback: asks for the code sent for this device.", challenge: true),
                FlowEvent("getUserConsentForLDA", summary: "Approved: asks whether this device enrolls LDA.", challenge: true),
                FlowEvent(
                    "getPassword", summary: "Approved: the user's password on this device (challengeMode 0); a first one for a user who has none (1); a new one when it has expired (4).",
                    challenge: true),
            ],
            services: [
                FlowService(
                    "deviceactivation.join",
                    summary: "Runs the new device's whole dialogue (approval or code, then LDA or password, then its key); ends logged in or stopped.",
                    params: [FlowParam("userID", .string, format: .userID), FlowParam("deviceName", .string)])
            ],
            uses: [
                "notifications.create", "notifications.withdraw", "newdevice.sendCode", "newdevice.verifyCode", "newdevice.complete",
                "credentials.userState", "device.createKey", "password.policy",
            ],
            reads: ["notifications.updated"])
    }
}
