import FlowHostSDK

/// `setSDKLanguage`: the language is the host's (`language.set`; every
/// flow's messages follow it), said here in the SDK's words, as the
/// session is (spec §22, "Languages"). It starts no dialogue: an app may
/// set it at any step.
extension MFAFlow {
    func setLanguage(_ localeCode: String, direction: Int) throws(FlowHostError) {
        let answer = try host.call(Services.LanguageSet(localeCode: localeCode, languageDirection: direction))
        host.emit(
            "onSetLanguageResponse",
            [
                "localeCode": .string(answer.localeCode), "localeName": .string(answer.localeName),
                "requestedLocaleCode": .string(localeCode), "languageDirection": .int(direction), "isFallback": .bool(answer.isFallback),
                "status": ["statusCode": .int(SDKCode.success), "statusMessage": .string(answer.statusMessage)],
                "error": SDKPayload.noError,
            ])
    }
}
