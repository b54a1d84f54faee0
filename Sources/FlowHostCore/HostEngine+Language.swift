import FlowHostVocabulary
import FlowJSON

/// The language every message is sent in. The host holds it (one host
/// serves one device, and every flow's messages follow it); the `mfa`
/// flow says it in the SDK's words (`setSDKLanguage`,
/// `onSetLanguageResponse`) through the `language.set` service, as it
/// says the session's (spec §22, "Languages").
extension HostEngine {
    /// What `language.set` answers: the language now used, its name in
    /// itself, whether it fell back to English, and the words that say so.
    public struct LanguageAnswer {
        public let localeCode: String
        public let localeName: String
        public let isFallback: Bool
        public let statusMessage: String
    }

    /// Sets the language, or refuses a malformed code or direction (-32602
    /// naming the field) and changes nothing. A catalog is read on such a
    /// call, the first time its language is set, never at start. What a
    /// host service keeps: it holds the language and the logger, not the engine.
    public var languageSetter: (_ localeCode: String, _ direction: Int) throws(FlowHostError) -> LanguageAnswer {
        { [language, logger] localeCode, direction throws(FlowHostError) in
            let request = try LanguageRequest(localeCode: localeCode, direction: direction)
            let outcome = language.set(request, logger: logger)
            let name = language.text(MessageKey(context: "language", id: "English"))
            let message =
                if outcome.problem != nil {
                    language.text(
                        MessageKey(context: "language", id: "The catalog for {localeCode} could not be read; English is used."), ["localeCode": localeCode])
                } else if outcome.fellBack {
                    language.text(MessageKey(context: "language", id: "No catalog for {localeCode}; English is used."), ["localeCode": localeCode])
                } else {
                    language.text(MessageKey(context: "language", id: "The language is now {localeName}."), ["localeName": name])
                }
            return LanguageAnswer(localeCode: outcome.localeCode, localeName: name, isFallback: outcome.fellBack, statusMessage: message)
        }
    }
}
