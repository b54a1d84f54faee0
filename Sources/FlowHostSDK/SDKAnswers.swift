/// The SDK's challenge answers, declared once. Several flows ask the same
/// questions (`getPassword`, `getUserConsentForLDA`, `getActivationCode`);
/// the host routes an answer to the flow that holds the open challenge, and
/// accepts one name from several flows only when their declarations match,
/// so every flow that answers one of these uses the declaration here.
public enum SDKAnswers {
    public static let setActivationCode = FlowMethod(
        "setActivationCode", summary: "Answers getActivationCode with the code the user received.",
        params: [FlowParam("activationCode", .string)], answers: ["getActivationCode"])

    public static let resendActivationCode = FlowMethod(
        "resendActivationCode", summary: "Sends a fresh code (rate-limited; attempts carry over).", answers: ["getActivationCode"])

    public static let setUserConsentForLDA = FlowMethod(
        "setUserConsentForLDA", summary: "Answers getUserConsentForLDA: enroll LDA (true) or not (false).",
        params: [
            FlowParam("shouldEnrollLDA", .boolean), FlowParam("challengeMode", .integer),
            FlowParam("authenticationType", .integer, description: "RDNALDACapabilities value."),
        ], answers: ["getUserConsentForLDA"])

    public static let setPassword = FlowMethod(
        "setPassword", summary: "Answers getPassword (the challengeMode it was asked with).",
        params: [FlowParam("password", .string), FlowParam("challengeMode", .integer)], answers: ["getPassword"])

    public static let updatePassword = FlowMethod(
        "updatePassword", summary: "Answers getPassword with challengeMode 4 (password expired) or 2 (a password change).",
        params: [FlowParam("currentPassword", .string), FlowParam("newPassword", .string), FlowParam("challengeMode", .integer)],
        answers: ["getPassword"])
}
