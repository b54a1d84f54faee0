import FlowHostSDK

extension LDAToggleFlow {
    static var declaration: FlowDeclaration {
        FlowDeclaration(
            name: "lda-toggle", version: "1.1.0",
            methods: [
                FlowMethod(
                    "getDeviceAuthenticationDetails",
                    summary: "The LDA types this device declared, each with isEnabled for the logged-in user; answered in the result.",
                    resultSchema: #"{"type":"array","items":{"type":"object","required":["authenticationType","isEnabled"],"properties":{"authenticationType":{"type":"integer"},"isEnabled":{"type":"boolean"}}}}"#),
                FlowMethod(
                    "manageDeviceAuthenticationModes",
                    summary: "Turns an LDA type on (verify password 5, consent 16) or off (verify 15, then a new password 14); onDeviceAuthManagementStatus follows.",
                    params: [FlowParam("isEnabled", .boolean), FlowParam("authenticationType", .integer, description: "RDNALDACapabilities value.")],
                    startsDialogue: true),
                SDKAnswers.setUserConsentForLDA, SDKAnswers.setPassword,
            ],
            events: [
                FlowEvent("getUserConsentForLDA", summary: "Enabling: asks for consent (challengeMode 16).", challenge: true),
                FlowEvent("getPassword", summary: "Verifying (challengeMode 5 or 15, the step-up's) and, when disabling, a new password (14, policy in info).", challenge: true),
                FlowEvent(
                    "onDeviceAuthManagementStatus",
                    summary: "How a toggle ended: userID, isEnabled, authenticationType, status, error (217: cancelled)."),
            ],
            uses: ["stepup.authenticate", "credentials.userState", "authenticators.enableLDA", "authenticators.disableLDA", "password.policy"])
    }
}
