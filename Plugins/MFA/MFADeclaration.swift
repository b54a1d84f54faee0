import FlowHostSDK

extension MFAFlow {
    static let base = #"{"type":"object","required":["response","error"]}"#

    static var declaration: FlowDeclaration {
        FlowDeclaration(
            name: "mfa", version: "1.2.0",
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
                    "resetBlockedUserAccount",
                    summary: "After getUser with 141: a code through the delivery channel (getActivationCode); the right one unblocks, then the password login."),
                FlowMethod(
                    "forgotPassword",
                    summary: "Answers getPassword 0 when its info says ENABLE_FORGOT_PASSWORD \"true\" (else 170): a code through the delivery channel (getActivationCode), then LDA consent or getPassword 1, then onUserLoggedIn (ForgotCredentials).",
                    params: [FlowParam("userID", .string, required: false, description: "The user getPassword asks for (optional, as in the SDK).", format: .userID)],
                    answers: ["getPassword"]),
                FlowMethod(
                    "getAllChallenges", summary: "The logged-in user's credentials that can be updated; onCredentialsAvailableForUpdate follows.",
                    params: [FlowParam("userName", .string, format: .userID)]),
                FlowMethod(
                    "initiateUpdateFlowForCredential", summary: "Starts a password change (\"Password\"): getPassword with challengeMode 2 follows.",
                    params: [FlowParam("credentialType", .string)], startsDialogue: true),
                FlowMethod(
                    "logOff", summary: "Ends the user's session; onUserLoggedOff then getUser follow.",
                    params: [FlowParam("userID", .string, format: .userID)]),
                FlowMethod(
                    "setSDKLanguage", summary: "Sets the language of every message this host sends; onSetLanguageResponse follows.",
                    params: [
                        FlowParam("localeCode", .string, description: "A language code: en, fr, fr-CA."),
                        FlowParam("languageDirection", .integer, description: "RDNALanguageDirection: 0 left to right, 1 right to left."),
                    ]),
            ] + sessionMethods,
            events: [
                FlowEvent("getUser", summary: "Asks for the user id.", paramsSchema: base, challenge: true, resting: true),
                FlowEvent("getActivationCode", summary: "Asks for the activation code.", paramsSchema: base, challenge: true),
                FlowEvent("getDeviceName", summary: "Asks for this device's name.", paramsSchema: base, challenge: true),
                FlowEvent("getUserConsentForLDA", summary: "Asks whether to enroll LDA.", paramsSchema: base, challenge: true),
                FlowEvent("getPassword", summary: "Asks for a password (challengeMode says which).", paramsSchema: base, challenge: true),
                FlowEvent("onUserLoggedIn", summary: "The user is logged in; carries the session.", paramsSchema: base),
                FlowEvent("onUserLoggedOff", summary: "The session ended.", paramsSchema: base),
                FlowEvent("onCredentialsAvailableForUpdate", summary: "getAllChallenges' answer: userID, options ([\"Password\"] when the user has one), error."),
                FlowEvent(
                    "onUpdateCredentialResponse",
                    summary: "How a password change ended: userID, credType, status (100 changed, then logoff; 153 attempts exhausted, then logoff; 121 expired), error."),
                FlowEvent(
                    "onSetLanguageResponse",
                    summary: "setSDKLanguage's answer: the language now used (localeCode, localeName), whether it fell back to English, the direction echoed."),
            ] + sessionEvents,
            uses: [
                "credentials.userState", "credentials.rememberedUsers", "activation.verify", "activation.resend", "activation.complete",
                "password.policy", "password.check", "password.login", "password.update", "session.open", "session.close", "session.extend", "session.token", "audit.record",
                "device.createKey", "device.prove", "deviceactivation.join", "account.sendRecoveryCode", "account.verifyRecoveryCode",
                "account.sendForgotPasswordCode", "account.verifyForgotPasswordCode", "account.completeForgotPassword",
                "language.set",
            ])
    }
}
