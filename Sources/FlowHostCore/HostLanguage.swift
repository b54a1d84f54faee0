import FlowHostVocabulary
import FlowJSON
import Logging

/// The language this host speaks to its client (one host serves one
/// device): English, built in, until `setSDKLanguage` names another. A
/// catalog file is read only then, never on the start path. It lasts as
/// long as the host; nothing is kept per device (spec §22, "Languages").
final class HostLanguage {
    /// Where `<language>.po` files are looked for, most preferred first;
    /// asked only when a language other than English is set.
    var catalogFolders: () -> [String] = { [] }
    private(set) var localeCode = "en"
    private(set) var direction = LanguageDirection.leftToRight
    /// nil: English, the messages' own text.
    private(set) var catalog: MessageCatalog?
    /// Catalogs read before, by language: switching back reads no file again.
    private var loaded: [String: MessageCatalog] = [:]

    /// What `set` did: the language now used, and whether it fell back to
    /// English (the requested one has no catalog, or its file is broken).
    struct Outcome {
        let localeCode: String
        let fellBack: Bool
        let problem: String?
    }

    func set(_ request: LanguageRequest, logger: Logger) -> Outcome {
        direction = request.direction
        if request.isEnglish {
            catalog = nil
            localeCode = "en"
            return Outcome(localeCode: "en", fellBack: false, problem: nil)
        }
        var problem: String?
        for language in request.candidates {
            if let known = loaded[language] {
                return use(known)
            }
            do {
                let catalog = try MessageCatalog.load(language: language, from: catalogFolders())
                if !catalog.refused.isEmpty {
                    logger.error("message catalog for \(language): \(catalog.refused.count) translations change their placeholders and are not used (English is sent): \(catalog.refused.prefix(5).map(\.description))")
                }
                loaded[language] = catalog
                return use(catalog)
            } catch .absent {
                continue
            } catch {
                // A broken file is the operator's to fix; the client gets English and is told.
                logger.error("message catalog for \(language) not used: \(error)")
                problem = "\(error)"
                break
            }
        }
        catalog = nil
        localeCode = "en"
        return Outcome(localeCode: "en", fellBack: true, problem: problem)
    }

    private func use(_ catalog: MessageCatalog) -> Outcome {
        self.catalog = catalog
        localeCode = catalog.language
        return Outcome(localeCode: catalog.language, fellBack: false, problem: nil)
    }

    /// `key`'s text in the language set, its placeholders filled.
    func text(_ key: MessageKey, _ values: [String: String] = [:]) -> String {
        catalog?.text(key, values) ?? MessageKey.fill(key.id, values)
    }

    /// The SDK's default words a flow puts in every event ("Success" in
    /// `statusMessage`, `errorString`, `StatusMsg`), in the language set:
    /// a flow writes them without asking the catalog, as every SDK payload
    /// helper does. Only when a language other than English is set.
    func translateDefaults(in params: JSON) {
        guard let catalog, let success = catalog.translation(Self.success) else { return }
        for path in Self.defaultTextPaths {
            var parent: JSON? = params
            for key in path.dropLast() { parent = parent?[key] }
            if let parent, parent.kind == .object, parent[path.last!]?.stringValue == Self.success.id { parent[path.last!] = .string(success) }
        }
    }

    static let success = MessageKey(context: "sdk", id: "Success")
    static let defaultTextPaths = [
        ["response", "status", "statusMessage"], ["status", "statusMessage"], ["error", "errorString"], ["pArgs", "response", "StatusMsg"],
    ]

    /// The host's own error messages a catalog translates (context
    /// "error"); a message with details in it stays English.
    static let errorTexts = [
        MessageKey(context: "error", id: "Parse error"), MessageKey(context: "error", id: "Invalid Request"),
        MessageKey(context: "error", id: "Method not found"), MessageKey(context: "error", id: "Invalid params"),
        MessageKey(context: "error", id: "Internal error"), MessageKey(context: "error", id: "already initialized"),
        MessageKey(context: "error", id: "Server is shutting down"), MessageKey(context: "error", id: "No open challenge"),
        MessageKey(context: "error", id: "Answer does not match the open challenge"),
        MessageKey(context: "error", id: "Another dialogue is in progress"),
    ]

    /// The host's error messages with a detail inside (ChallengeSlot): the
    /// detail is the placeholder's value, kept as it is.
    static let errorTemplates = [
        MessageKey(context: "error", id: "No open challenge for {method}"),
        MessageKey(context: "error", id: "{method} does not answer the open challenge {event}"),
        MessageKey(context: "error", id: "challengeMode {given} does not match the open challenge's {expected}"),
    ]

    /// An error's message in the language set, where the catalog has its
    /// text (context "error"); its code and data never change.
    /// A message that names a detail after its fixed words ("Method not
    /// found: nope") has those words translated and the detail kept.
    func localized(_ error: FlowHostError) -> FlowHostError {
        guard let catalog else { return error }
        if let text = catalog.translation(MessageKey(context: "error", id: error.message)) { return error.withMessage(text) }
        for template in Self.errorTemplates {
            if let values = Self.values(of: template.id, in: error.message), let text = catalog.translation(template) {
                return error.withMessage(MessageKey.fill(text, values))
            }
        }
        let message = error.message
        guard let colon = message.indices.first(where: { message[$0] == ":" && message[message.index(after: $0)...].hasPrefix(" ") }),
            let head = catalog.translation(MessageKey(context: "error", id: String(message[..<colon])))
        else { return error }
        return error.withMessage(head + message[colon...])
    }

    /// The placeholders' values when `message` is `template` filled in
    /// (each value a non-empty run of text without a space), else nil.
    static func values(of template: String, in message: String) -> [String: String]? {
        var values: [String: String] = [:]
        var rest = Substring(message)
        var pattern = Substring(template)
        while !pattern.isEmpty {
            if pattern.first == "{", let close = pattern.firstIndex(of: "}") {
                let name = String(pattern[pattern.index(after: pattern.startIndex)..<close])
                pattern = pattern[pattern.index(after: close)...]
                // A value is a word; it ends before a space or the template's next letters ("'s").
                let literal = pattern.prefix { $0 != "{" && $0 != " " }
                var end = rest.startIndex
                while end < rest.endIndex, rest[end] != " ", literal.isEmpty || !rest[end...].hasPrefix(literal) {
                    end = rest.index(after: end)
                }
                guard end > rest.startIndex else { return nil }
                values[name] = String(rest[..<end])
                rest = rest[end...]
            } else {
                guard rest.first == pattern.first else { return nil }
                rest = rest.dropFirst()
                pattern = pattern.dropFirst()
            }
        }
        return rest.isEmpty ? values : nil
    }
}
