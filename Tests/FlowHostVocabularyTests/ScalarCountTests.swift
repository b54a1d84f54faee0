import FlowHostVocabulary
import Testing

/// The UTF-8 count of scalars agrees with the scalar view on text of every
/// sequence length, on text cut from a larger string, and on the empty text.
@Suite struct ScalarCountTests {
    @Test func countsWhatTheScalarViewCounts() {
        let texts = [
            "", "a", "Invoice 12", "é", "e\u{301}", "€40", "日本語のテキスト", "🇫🇷👩‍👩‍👧", "\u{10FFFF}\u{0}\n",
            String(repeating: "x", count: 200), String(repeating: "ü€🙂", count: 50),
        ]
        for text in texts {
            #expect(text.unicodeScalarCount == text.unicodeScalars.count, "\(text)")
        }
        let long = "prefix é€🙂 suffix"
        let cut = String(long.dropFirst(7).dropLast(7))
        #expect(cut.unicodeScalarCount == cut.unicodeScalars.count)
        #expect("🙂".unicodeScalarCount == 1 && "e\u{301}".unicodeScalarCount == 2)
    }

    /// Every scalar value's encoding length (1 to 4 bytes) counts as one.
    @Test func everyEncodingLengthIsOne() {
        for value: UInt32 in [0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF] {
            let text = String(Character(Unicode.Scalar(value)!))
            #expect(text.unicodeScalarCount == 1, "U+\(String(value, radix: 16))")
            #expect(String(repeating: text, count: 7).unicodeScalarCount == 7)
        }
    }
}
