import FlowHostVocabulary
import Testing

/// The user-id rule answers ASCII without Unicode's property tables; these
/// tests hold that answer to the tables' for every ASCII scalar, and check
/// the rule on ids either side of it.
@Suite struct UserIdentifierTests {
    @Test func asciiAnswersAgreeWithUnicodeProperties() {
        for value in UInt32(0)..<0x80 {
            let scalar = Unicode.Scalar(value)!
            let category = scalar.properties.generalCategory
            let forbidden = [.control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned].contains(category)
            #expect(UserIdentifier.isForbidden(scalar) == forbidden, "U+\(String(value, radix: 16))")
            #expect(UserIdentifier.isWhiteSpace(scalar) == scalar.properties.isWhitespace, "U+\(String(value, radix: 16))")
        }
    }

    @Test func outsideASCIITheTablesStillDecide() {
        #expect(UserIdentifier.isForbidden("\u{202E}"))  // right-to-left override: format
        #expect(UserIdentifier.isForbidden("\u{85}"))  // next line: a C1 control
        #expect(UserIdentifier.isForbidden("\u{2028}"))  // line separator
        #expect(!UserIdentifier.isForbidden("é"))
        #expect(UserIdentifier.isWhiteSpace("\u{A0}") && UserIdentifier.isWhiteSpace("\u{3000}"))
        #expect(!UserIdentifier.isWhiteSpace("\u{200B}"))  // zero width space is a format character, not white space
    }

    @Test func theRuleOnWholeIDs() {
        #expect(UserIdentifier.problem(with: "alice") == nil)
        #expect(UserIdentifier.problem(with: "zoë@example.org") == nil)
        #expect(UserIdentifier.problem(with: "") == "must not be empty")
        #expect(UserIdentifier.problem(with: " alice") == "must not start or end with white space")
        #expect(UserIdentifier.problem(with: "alice ") == "must not start or end with white space")
        #expect(UserIdentifier.problem(with: "alice\t") == "must not contain control or format characters")  // a control first
        #expect(UserIdentifier.problem(with: "alice\u{3000}") == "must not start or end with white space")
        #expect(UserIdentifier.problem(with: "al\u{7F}ice") == "must not contain control or format characters")
        #expect(UserIdentifier.problem(with: "al\u{200D}ice") == "must not contain control or format characters")
        #expect(UserIdentifier.problem(with: "al ice") == nil)
    }
}
