/// An ES256 signature's forms, as the host takes them (spec §7): s in the
/// low half, in strict DER. Platforms' signers give either half; (r, n − s)
/// is the same signature's other form, so lowering s needs no key. The
/// host checks signatures in these forms and the Swift client makes them,
/// so both use this one module (no Foundation, no libcrypto).
public enum ES256Signature {
    /// P-256's group order n, big-endian.
    public static let order: [UInt8] = [
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17,
        0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
    ]
    /// ⌊n/2⌋, the largest s the host accepts.
    public static let halfOrder: [UInt8] = [
        0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xde, 0x73, 0x7d, 0x56, 0xd3, 0x8b,
        0xcf, 0x42, 0x79, 0xdc, 0xe5, 0x61, 0x7e, 0x31, 0x92, 0xa8,
    ]

    /// Whether the 32-byte `s` is above n/2.
    public static func isHigh(_ s: [UInt8]) -> Bool { halfOrder.lexicographicallyPrecedes(s) }

    /// The 64-byte r‖s with s ≤ n/2; nil when it is not 64 bytes.
    public static func lowS(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 else { return nil }
        let r = Array(raw[..<32]), s = Array(raw[32...])
        return isHigh(s) ? r + subtract(s, from: order) : raw
    }

    /// A 64-byte r‖s as strict DER: SEQUENCE { INTEGER r, INTEGER s }, each minimal.
    public static func der(_ raw: [UInt8]) -> [UInt8] {
        precondition(raw.count == 64, "r‖s is 64 bytes")
        let body = integer(raw[..<32]) + integer(raw[32...])
        return [0x30, UInt8(body.count)] + body
    }

    /// The 64-byte r‖s of a strict DER signature, that is, of bytes that
    /// `der` writes for some r and s below 2²⁵⁶; nil for anything else (a
    /// long-form or wrong length, a padded or negative integer, bytes after
    /// it). Read leniently, then written again and compared: strict by
    /// construction, with no second notion of DER to keep in step.
    public static func raw(fromDER bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 8, bytes.count <= 72, bytes[0] == 0x30, Int(bytes[1]) == bytes.count - 2 else { return nil }
        var index = 2
        func integer() -> [UInt8]? {
            guard index + 2 <= bytes.count, bytes[index] == 0x02 else { return nil }
            let length = Int(bytes[index + 1])
            index += 2
            guard length >= 1, length <= 33, index + length <= bytes.count else { return nil }
            let value = Array(bytes[index..<(index + length)].drop { $0 == 0 })
            index += length
            guard value.count <= 32 else { return nil }
            return [UInt8](repeating: 0, count: 32 - value.count) + value
        }
        guard let r = integer(), let s = integer(), index == bytes.count else { return nil }
        let raw = r + s
        return der(raw) == bytes ? raw : nil
    }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var minimal = Array(bytes.drop { $0 == 0 })
        if minimal.isEmpty { minimal = [0] }
        if minimal[0] & 0x80 != 0 { minimal.insert(0, at: 0) }  // positive
        return [0x02, UInt8(minimal.count)] + minimal
    }

    /// a − b for big-endian numbers of one length, a ≥ b.
    private static func subtract(_ b: [UInt8], from a: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: a.count), borrow = 0
        for index in a.indices.reversed() {
            let difference = Int(a[index]) - Int(b[index]) - borrow
            result[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        return result
    }
}
