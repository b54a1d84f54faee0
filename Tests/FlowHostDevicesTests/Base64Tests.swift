import FlowHostDevices
import Testing

/// RFC 4648's test vectors (§10), in both alphabets, and back.
@Suite struct Base64Tests {
    static let vectors: [(String, String, String)] = [
        ("", "", ""), ("f", "Zg==", "Zg"), ("fo", "Zm8=", "Zm8"), ("foo", "Zm9v", "Zm9v"), ("foob", "Zm9vYg==", "Zm9vYg"),
        ("fooba", "Zm9vYmE=", "Zm9vYmE"), ("foobar", "Zm9vYmFy", "Zm9vYmFy"),
    ]

    @Test func theRFCVectors() {
        for (plain, padded, urlSafe) in Self.vectors {
            #expect(Base64.encode(Array(plain.utf8)) == padded)
            #expect(Base64.encodeURLSafe(Array(plain.utf8)) == urlSafe)
            #expect(Base64.decode(padded) == Array(plain.utf8))
        }
    }

    @Test func theTwoAlphabetsDiffer() {
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
        #expect(Base64.encodeURLSafe([0xFB, 0xFF]) == "-_8")
    }

    @Test func everyLengthRoundTrips() {
        for length in 0..<200 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) }
            let text = Base64.encode(bytes)
            #expect(text.utf8.count == (length + 2) / 3 * 4)
            #expect(Base64.decode(text) == bytes)
        }
    }
}
