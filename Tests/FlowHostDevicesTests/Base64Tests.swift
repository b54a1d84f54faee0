import FlowHostDevices
import Foundation
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

    /// Every 6-bit value in every position, and every tail length, against
    /// Foundation's encoder: the arithmetic that picks each character is
    /// checked at each of the 64 values and both alphabets' last two.
    @Test func everyValueInEveryPositionMatchesFoundation() {
        var inputs: [[UInt8]] = (0...255).map { [UInt8($0), UInt8(255 - $0), UInt8($0 ^ 0x5A)] }
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 { inputs.append((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        for bytes in inputs {
            let expected = Data(bytes).base64EncodedString()
            #expect(Base64.encode(bytes) == expected, "\(bytes)")
            let urlSafe = expected.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64.encodeURLSafe(bytes) == urlSafe, "\(bytes)")
        }
    }

    /// Appending to bytes gives what `encode` gives, after what was there,
    /// for every tail length and for text that is not ASCII.
    @Test func appendingMatchesEncoding() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 61 &+ 7) }
            var output = Array("prefix=".utf8)
            bytes.withUnsafeBufferPointer { Base64.append($0, to: &output) }
            #expect(output == Array(("prefix=" + Base64.encode(bytes)).utf8))
        }
        for text in ["", "é", "Invoice 12 — €40", String(repeating: "x", count: 200)] {
            var output: [UInt8] = [1, 2]
            Base64.append(utf8: text, to: &output)
            #expect(output == [1, 2] + Array(Base64.encode(Array(text.utf8)).utf8))
        }
    }
}
