import FlowHostPOSIX
import Testing

/// Substring search by UTF-8 bytes: the host's stand-in for the standard
/// library's `firstRange(of:)` and `contains(_:)`, which live in
/// `_StringProcessing`, a library flowhost does not load.
@Suite struct ByteSearchTests {
    @Test func theFirstOccurrenceIsFound() {
        let url = "postgresql://host/db?x=a://b"
        let range = url.firstByteRange(of: "://")
        #expect(range.map { String(url[..<$0.lowerBound]) } == "postgresql")
        #expect(range.map { String(url[$0]) } == "://")
        #expect(range.map { String(url[$0.upperBound...]) } == "host/db?x=a://b")
    }

    @Test func aMissOrAShortHaystackIsNil() {
        #expect("/var/lib/flowhost.sqlite".firstByteRange(of: "://") == nil)
        #expect("ab".firstByteRange(of: "abc") == nil)
        #expect("".firstByteRange(of: "a") == nil)
        #expect(!"alice".containsBytes(of: "bob"))
    }

    @Test func aPartialMatchDoesNotHideTheRealOne() {
        // The first `a` starts a match that fails at the third byte; the
        // search must restart one byte later, not after the failed part.
        let text = "aaab"
        #expect(text.firstByteRange(of: "aab").map { text.distance(from: text.startIndex, to: $0.lowerBound) } == 1)
        #expect("xxabcabd".containsBytes(of: "abd"))
        #expect("tail-end".containsBytes(of: "end"))
    }

    @Test func anEmptyNeedleMatchesAtTheStart() {
        #expect("abc".firstByteRange(of: "") == "abc".startIndex..<"abc".startIndex)
        #expect("".containsBytes(of: ""))
    }

    @Test func bytesMatchInsideACharacter() {
        // `e` followed by a combining acute accent is one Character; a search
        // by Character does not find `e` in it, a search by bytes does. A
        // password holding the user id with a mark after it is still refused.
        let accented = "bob\u{301}-secret"
        #expect(!accented.contains("bob"))
        #expect(accented.containsBytes(of: "bob"))
        #expect("caf\u{E9}".containsBytes(of: "\u{E9}"))
        #expect(!"cafe\u{301}".containsBytes(of: "\u{E9}"))
    }

    @Test func aSubstringIsSearchedInItsOwnBounds() {
        let line = "key=value; other=key"
        let tail = line[line.index(line.startIndex, offsetBy: 10)...]
        let range = tail.firstByteRange(of: "key")
        #expect(range.map { String(tail[$0.upperBound...]) } == "")
        #expect(range.map { line.distance(from: line.startIndex, to: $0.lowerBound) } == 17)
    }
}
