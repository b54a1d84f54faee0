import FlowHostVocabulary
import FlowJSON

/// `setSDKLanguage`: the host's own method, since the language is the
/// host's (every flow's messages follow it), answered with
/// `onSetLanguageResponse` after the reply (spec §22, "Languages").
extension HostEngine {
    static var setLanguageSpec: MethodSpec {
        MethodSpec(
        name: "setSDKLanguage", summary: "Sets the language of every message this host sends; onSetLanguageResponse follows.",
        params: [
            ParamSpec(name: "localeCode", type: .string, description: "A language code: en, fr, fr-CA."),
            ParamSpec(name: "languageDirection", type: .integer, description: "RDNALanguageDirection: 0 left to right, 1 right to left."),
        ])
    }

    func registerLanguage() {
        names.addBuiltin(Self.setLanguageSpec) { [unowned self] params throws(FlowHostError) in
            let request = try LanguageRequest(
                localeCode: params["localeCode"]!.stringValue!, direction: params["languageDirection"]!.intValue ?? -1)
            let outcome = language.set(request, logger: logger)
            send(.event(name: "onSetLanguageResponse", params: languageResponse(request, outcome)))
            return nil
        }
    }

    /// The event's fields: the language asked for and the one now used, the
    /// direction echoed, and the SDK's `status` and `error`.
    private func languageResponse(_ request: LanguageRequest, _ outcome: HostLanguage.Outcome) -> JSON {
        let name = language.text(MessageKey(context: "language", id: "English"))
        let message =
            if outcome.problem != nil {
                language.text(MessageKey(context: "language", id: "The catalog for {localeCode} could not be read; English is used."), ["localeCode": request.localeCode])
            } else if outcome.fellBack {
                language.text(MessageKey(context: "language", id: "No catalog for {localeCode}; English is used."), ["localeCode": request.localeCode])
            } else {
                language.text(MessageKey(context: "language", id: "The language is now {localeName}."), ["localeName": name])
            }
        return [
            "localeCode": .string(outcome.localeCode),
            "localeName": .string(name),
            "requestedLocaleCode": .string(request.localeCode),
            "languageDirection": .int(request.direction.rawValue),
            "isFallback": .bool(outcome.fellBack),
            "status": ["statusCode": .int(SDKCode.success), "statusMessage": .string(message)],
            "error": [
                "longErrorCode": .int(SDKCode.noError), "shortErrorCode": .int(SDKCode.noError), "errorString": .string(language.text(HostLanguage.success)),
            ],
        ]
    }
}
