import FlowHostSDK

extension LDAToggleFlow {
    static let declaration = FlowDeclaration(
        name: "lda-toggle", version: "1.0.0",
        methods: [
            FlowMethod(
                "getDeviceAuthenticationDetails",
                summary: "The LDA types this device declared, each with isConfigured (0|1) for the logged-in user; answered in the result.",
                resultSchema: #"{"type":"object","required":["authenticationCapabilities"],"properties":{"authenticationCapabilities":{"type":"array","items":{"type":"object","required":["authenticationType","isConfigured"],"properties":{"authenticationType":{"type":"integer"},"isConfigured":{"enum":[0,1]}}}}}}"#),
            FlowMethod(
                "manageDeviceAuthenticationModes",
                summary: "Turns an LDA type on (verify password 5, consent 16) or off (verify 15, a password 14 when there is none); onDeviceAuthManagementStatus follows.",
                params: [FlowParam("isEnabled", .boolean), FlowParam("authenticationType", .integer, description: "RDNALDACapabilities value.")],
                startsDialogue: true),
            SDKAnswers.setUserConsentForLDA, SDKAnswers.setPassword,
        ],
        events: [
            FlowEvent("getUserConsentForLDA", summary: "Enabling: asks for consent (challengeMode 16).", challenge: true),
            FlowEvent("getPassword", summary: "Disabling for a user without a password: asks for a new one (challengeMode 14, policy in challengeInfo).", challenge: true),
            FlowEvent(
                "onDeviceAuthManagementStatus",
                summary: "How a toggle ended: userID, OpMode (1 enable, 0 disable), ldaType, status, error (217: cancelled)."),
        ],
        uses: ["stepup.authenticate", "credentials.userState", "authenticators.enableLDA", "authenticators.disableLDA", "password.policy"])
}
