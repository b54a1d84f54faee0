import CSodium

/// Standard base64 (with padding), the spelling of keys and signatures on
/// the wire, and base64url for tokens. Encoding is done here, without a
/// table and without a branch on the data (what it encodes may be a token),
/// inlined per character: through libsodium, one call per character, it
/// was 6% of a signing's instructions. Decoding stays libsodium's, which
/// also refuses what is not base64.
public enum Base64 {
    public static func encode(_ bytes: [UInt8]) -> String {
        encode(bytes, last62: UInt8(ascii: "+"), last63: UInt8(ascii: "/"), padded: true)
    }

    /// RFC 4648 §5 base64url without padding (JSON Web Tokens).
    public static func encodeURLSafe(_ bytes: [UInt8]) -> String {
        encode(bytes, last62: UInt8(ascii: "-"), last63: UInt8(ascii: "_"), padded: false)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: text.utf8.count)
        var length = 0
        let code = sodium_base642bin(&bytes, bytes.count, text, text.utf8.count, nil, &length, nil, fh_base64_variant_original())
        return code == 0 ? Array(bytes[0..<length]) : nil
    }

    /// RFC 4648 §5 base64url without padding, strictly (WebAuthn's JSON
    /// encoding): padding, whitespace and the standard alphabet are refused.
    public static func decodeURLSafe(_ text: String) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: text.utf8.count)
        var length = 0
        let code = sodium_base642bin(&bytes, bytes.count, text, text.utf8.count, nil, &length, nil, fh_base64_variant_urlsafe_no_padding())
        return code == 0 ? Array(bytes[0..<length]) : nil
    }

    /// Standard base64 of `bytes` (with padding), appended to `output`: for
    /// a message built as bytes, without a string made per field.
    public static func append(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let length = encodedLength(bytes.count, padded: true)
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: length))
        output.withUnsafeMutableBufferPointer { buffer in
            _ = write(bytes, into: UnsafeMutableBufferPointer(rebasing: buffer[start...]), last62: UInt8(ascii: "+"), last63: UInt8(ascii: "/"), padded: true)
        }
    }

    /// The same, of a text's UTF-8.
    public static func append(utf8 text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { append($0, to: &output) }
    }

    private static func encodedLength(_ count: Int, padded: Bool) -> Int {
        let whole = count / 3 * 3
        let rest = count - whole
        return whole / 3 * 4 + (rest == 0 ? 0 : padded ? 4 : rest + 1)
    }

    private static func encode(_ bytes: [UInt8], last62: UInt8, last63: UInt8, padded: Bool) -> String {
        let length = encodedLength(bytes.count, padded: padded)
        // Written straight into the string's storage (base64 is ASCII).
        return String(unsafeUninitializedCapacity: length) { text in
            bytes.withUnsafeBufferPointer { write($0, into: text, last62: last62, last63: last63, padded: padded) }
        }
    }

    /// Writes the encoding of `input` at the start of `text`, which has room
    /// for exactly `encodedLength(input.count, padded:)`; returns that length.
    private static func write(
        _ input: UnsafeBufferPointer<UInt8>, into text: UnsafeMutableBufferPointer<UInt8>, last62: UInt8, last63: UInt8, padded: Bool
    ) -> Int {
        let whole = input.count / 3 * 3
        let rest = input.count - whole
        let length = encodedLength(input.count, padded: padded)
        var out = 0
        func put(_ sextet: UInt32) {
            text[out] = character(UInt8(truncatingIfNeeded: sextet & 63), last62, last63)
            out += 1
        }
        var index = 0
        while index < whole {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            put(group >> 18)
            put(group >> 12)
            put(group >> 6)
            put(group)
            index += 3
        }
        if rest > 0 {
            let group = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
            put(group >> 18)
            put(group >> 12)
            if rest == 2 { put(group >> 6) }
            if padded {
                while out < length {
                    text[out] = UInt8(ascii: "=")
                    out += 1
                }
            }
        }
        return length
    }

    /// The character for a 6-bit value, by arithmetic on masks rather than
    /// a lookup or a branch: A–Z, a–z, 0–9, then `last62` and `last63`.
    @inline(__always)
    private static func character(_ value: UInt8, _ last62: UInt8, _ last63: UInt8) -> UInt8 {
        let x = Int16(value)
        // (limit - x) >> 8 is all ones when x > limit, else zero.
        var c = x + 65  // 'A'
        c += ((25 - x) >> 8) & 6  // from 26: 'a' - 26
        c -= ((51 - x) >> 8) & 75  // from 52: '0' - 52
        c += ((61 - x) >> 8) & (Int16(last62) - 58)  // 62: last62
        c += ((62 - x) >> 8) & (Int16(last63) - Int16(last62) - 1)  // 63: last63
        return UInt8(truncatingIfNeeded: c)
    }
}
