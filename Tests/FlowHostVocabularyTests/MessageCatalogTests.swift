#if canImport(Glibc)
import Glibc
#endif
import FlowHostPOSIX
import FlowHostVocabulary
import Testing

/// The shipped catalogs (Protocol/locale) and how a host picks and reads one.
@Suite struct MessageCatalogTests {
    static let locale: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/Protocol/locale"
    }()

    static func catalog(_ language: String) throws -> MessageCatalog {
        try MessageCatalog.load(language: language, from: [locale])
    }

    /// Every catalog translates every message English has, no more, with the same placeholders.
    @Test func theCatalogsHaveTheSameMessagesAndPlaceholders() throws {
        let english = try Self.catalog("en")
        #expect(english.keys.count > 100)
        for key in english.keys { #expect(english.translation(key) == key.id, "en.po's \(key) is not its own text") }
        let languages = (SystemFolder.names(in: Self.locale) ?? []).filter { $0.hasSuffix(".po") }.map { String($0.dropLast(3)) }
        #expect(languages.contains("fr"))
        for language in languages where language != "en" {
            let catalog = try Self.catalog(language)
            #expect(Set(catalog.keys) == Set(english.keys), "\(language).po and en.po list different messages")
            for key in english.keys {
                let translation = try #require(catalog.translation(key), "\(language).po leaves \(key) untranslated")
                #expect(MessageKey.placeholders(in: translation) == MessageKey.placeholders(in: key.id), "\(language).po changes \(key)'s placeholders")
            }
        }
    }

    @Test func fillsPlaceholdersAndLeavesUnknownOnes() {
        #expect(MessageKey.fill("Invalid user: {userID} is not known.", ["userID": "ann"]) == "Invalid user: ann is not known.")
        #expect(MessageKey.fill("{a} and {b}", ["a": "1"]) == "1 and {b}")
        #expect(MessageKey.fill("takes {text: string}", ["text": "x"]) == "takes {text: string}")
        #expect(MessageKey.fill("open { and {x", ["x": "1"]) == "open { and {x")
        #expect(MessageKey.placeholders(in: "{b} {a} {text: string}") == ["a", "b"])
    }

    @Test func aCatalogTranslatesByContext() throws {
        let french = try Self.catalog("fr")
        #expect(french.text(MessageKey(context: "mfa", id: "Invalid user: {userID} is not known."), ["userID": "ann"]) == "Utilisateur invalide : ann est inconnu.")
        #expect(french.text(MessageKey(context: "nowhere", id: "Not in any catalog")) == "Not in any catalog")
    }

    @Test func aMissingOrBrokenFileIsAClearError() throws {
        let folder = try TemporaryFolder(prefix: "catalogs")
        #expect(throws: MessageCatalog.LoadError.self) { try MessageCatalog.load(language: "de", from: [folder.path]) }
        try SystemFile.create(folder.path + "/de.po", bytes: Array("msgid \"a\"\nmsgstr \"b".utf8), mode: 0o600)
        do {
            _ = try MessageCatalog.load(language: "de", from: [folder.path])
            Issue.record("a broken catalog was read")
        } catch {
            #expect("\(error)".contains("de.po is not a valid PO file: line 2"))
        }
    }

    @Test(arguments: [("fr", ["fr"]), ("fr-ca", ["fr_CA", "fr"]), ("pt_BR", ["pt_BR", "pt"]), ("zh-Hant-TW", ["zh_hant_TW", "zh"]), ("EN", ["en"])])
    func aLanguageCodeNamesTheCatalogsToTry(code: String, candidates: [String]) throws {
        #expect(try LanguageRequest(localeCode: code, direction: 0).candidates == candidates)
    }

    @Test(arguments: ["", "f", "french!", "fr-", "-fr", "fr--CA", "1a", "fr-toolongpart", "../etc/passwd", "fr/../../x", "é", String(repeating: "a-b", count: 20)])
    func aMalformedCodeIsRefused(code: String) {
        #expect(throws: FlowHostError.self) { try LanguageRequest(localeCode: code, direction: 0) }
    }

    @Test func aDirectionOtherThanLTROrRTLIsRefused() throws {
        #expect(try LanguageRequest(localeCode: "ar", direction: 1).direction == .rightToLeft)
        #expect(throws: FlowHostError.self) { try LanguageRequest(localeCode: "ar", direction: 2) }
        #expect(throws: FlowHostError.self) { try LanguageRequest(localeCode: "ar", direction: -1) }
    }
}

/// What an operator's catalog can hold that the host must not use.
@Suite struct MessageCatalogUntrustedTests {
    /// A translation that drops or adds a placeholder could hide a value or
    /// show one its message never named: that message stays English.
    @Test func aTranslationWithOtherPlaceholdersIsNeverUsed() throws {
        let folder = try TemporaryFolder(prefix: "catalogs")
        let text = """
            msgctxt "mfa"
            msgid "Invalid user: {userID} is not known."
            msgstr "Utilisateur invalide : {password}."

            msgctxt "mfa"
            msgid "Welcome {userID}"
            msgstr "Bienvenue"

            msgctxt "mfa"
            msgid "Done"
            msgstr "Fait {userID}"

            msgctxt "mfa"
            msgid "Hello {userID}"
            msgstr "Bonjour {userID}"
            """
        try SystemFile.create(folder.path + "/de.po", bytes: Array(text.utf8), mode: 0o600)
        let catalog = try MessageCatalog.load(language: "de", from: [folder.path])
        let values = ["userID": "ann", "password": "hunter2"]
        #expect(catalog.text(MessageKey(context: "mfa", id: "Invalid user: {userID} is not known."), values) == "Invalid user: ann is not known.")
        #expect(catalog.text(MessageKey(context: "mfa", id: "Welcome {userID}"), values) == "Welcome ann")
        #expect(catalog.text(MessageKey(context: "mfa", id: "Done"), values) == "Done")
        #expect(catalog.text(MessageKey(context: "mfa", id: "Hello {userID}"), values) == "Bonjour ann")
        #expect(catalog.translation(MessageKey(context: "mfa", id: "Done")) == nil)
    }

    /// A catalog is a small regular file: a device, a FIFO or a huge file is not read.
    @Test func aCatalogThatIsNotASmallRegularFileIsRefused() throws {
        let folder = try TemporaryFolder(prefix: "catalogs")
        let huge = [UInt8](repeating: UInt8(ascii: "#"), count: 1 << 23)
        try SystemFile.create(folder.path + "/de.po", bytes: huge, mode: 0o600)
        #expect(throws: MessageCatalog.LoadError.self) { try MessageCatalog.load(language: "de", from: [folder.path]) }
        #expect(mkfifo(folder.path + "/it.po", 0o600) == 0)
        #expect(throws: MessageCatalog.LoadError.self) { try MessageCatalog.load(language: "it", from: [folder.path]) }
    }
}
