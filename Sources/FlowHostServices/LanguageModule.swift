import FlowHostCore
import FlowHostServiceTypes
import FlowHostVocabulary

/// `language.set`: the language every message of this host is sent in,
/// which the `mfa` flow's `setSDKLanguage` asks for (spec §22, "Languages").
enum LanguageModule {
    static func register(in engine: HostEngine) {
        let setLanguage = engine.languageSetter
        offer(engine, Services.LanguageSet.self) { _, request in
            let answer = try setLanguage(request.localeCode, request.languageDirection)
            return Services.LanguageSetOutcome(
                localeCode: answer.localeCode, localeName: answer.localeName, isFallback: answer.isFallback, statusMessage: answer.statusMessage)
        }
    }
}
