import FlowHostVocabulary
import Testing

/// The PO subset the host reads: what translators write, and clear errors
/// (with the line) for what it cannot use.
@Suite struct POFileTests {
    @Test func readsContextsEscapesAndContinuedStrings() throws {
        let text = """
            # A translator's comment
            msgid ""
            msgstr ""
            "Content-Type: text/plain; charset=UTF-8\\n"

            #: Plugins/MFA/MFAFlow.swift
            msgctxt "mfa"
            msgid "Invalid user: {userID} is not known."
            msgstr "Utilisateur invalide : {userID} est inconnu."

            msgctxt "step-up"
            msgid ""
            "Two "
            "lines"
            msgstr "Deux\\n"
            "lignes \\"citées\\" \\\\ et\\ttab"

            msgid "No context"
            msgstr "Sans contexte"
            """
        let entries = try POFile.parse(text)
        #expect(entries.count == 3)
        #expect(entries[MessageKey(context: "mfa", id: "Invalid user: {userID} is not known.")] == "Utilisateur invalide : {userID} est inconnu.")
        #expect(entries[MessageKey(context: "step-up", id: "Two lines")] == "Deux\nlignes \"citées\" \\ et\ttab")
        #expect(entries[MessageKey(context: "", id: "No context")] == "Sans contexte")
    }

    @Test func leavesOutUntranslatedAndFuzzyEntries() throws {
        let text = """
            msgctxt "mfa"
            msgid "Not yet"
            msgstr ""

            #, fuzzy
            msgctxt "mfa"
            msgid "Unsure"
            msgstr "Pas sûr"

            msgctxt "mfa"
            msgid "Sure"
            msgstr "Sûr"
            """
        #expect(try POFile.parse(text) == [MessageKey(context: "mfa", id: "Sure"): "Sûr"])
    }

    @Test(arguments: [
        ("msgid \"a\"\nmsgstr \"b\nc\"", 2, "expected a string in double quotes"),
        ("msgid \"a\"\nmsgstr \"b\\q\"", 2, "unknown escape \\q"),
        ("msgid \"a\"\nmsgstr \"b\\\"", 2, "the string ends in a lone backslash"),
        ("msgid \"a\"\nmsgstr \"b\"c\"", 2, "a double quote inside a string must be escaped"),
        ("msgid \"a\"\nmsgid_plural \"as\"\nmsgstr[0] \"b\"", 2, "plural forms are not supported"),
        ("msgid \"a\"\nmsgstr[0] \"b\"", 2, "plural forms are not supported"),
        ("msgid \"a\"\nmsgstr \"b\"\nmsgctxt \"x\"\nmsgid \"a\"\nmsgstr \"c\"\nmsgctxt \"x\"\nmsgid \"a\"\nmsgstr \"d\"", 8, "msgid \"a\" appears twice in context \"x\""),
        ("\"stray\"", 1, "a string continues no keyword"),
        ("msgstr \"b\"", 1, "msgstr before its msgid"),
        ("msgid \"a\"\nmsgctxt \"x\"\nmsgstr \"b\"", 2, "msgctxt after its msgid"),
        ("msgid \"a\"\nmsgid \"b\"", 2, "msgid given twice in one entry"),
        ("msgid \"a\"", 1, "an entry needs both msgid and msgstr"),
        ("translate \"a\"", 1, "unknown keyword translate"),
    ])
    func refusesWhatItCannotUse(text: String, line: Int, reason: String) {
        #expect(throws: POFile.ParseError(line: line, reason: reason)) { try POFile.parse(text) }
    }

    @Test func anyTextEndsInEntriesOrAnErrorNeverACrash() {
        let pieces = ["msgid ", "msgstr ", "msgctxt ", "\"", "\\", "\n", "#, fuzzy\n", "a", "{x}", "é", "\r\n", "\t"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...24, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            _ = try? POFile.parse(text)
        }
    }
}

/// Input a translator's editor or an attacker with write access to a catalog folder might give.
@Suite struct POFileHostileInputTests {
    /// A flags comment ends the entry before it; a string after it continues nothing.
    @Test func aStringAfterAFlagsCommentIsAnErrorNotACrash() {
        let text = "msgid \"a\"\nmsgstr \"b\"\n#, fuzzy\n\"c\""
        #expect(throws: POFile.ParseError(line: 4, reason: "a string continues no keyword")) { try POFile.parse(text) }
    }

    /// Editors on Windows save CRLF line ends.
    @Test func readsCRLFLineEnds() throws {
        let text = "msgctxt \"mfa\"\r\nmsgid \"a\"\r\nmsgstr \"b\"\r\n\"c\"\r\n\r\nmsgid \"d\"\r\nmsgstr \"e\"\r\n"
        #expect(try POFile.parse(text) == [MessageKey(context: "mfa", id: "a"): "bc", MessageKey(context: "", id: "d"): "e"])
    }
}
