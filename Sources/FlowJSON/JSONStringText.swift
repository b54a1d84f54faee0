/// A JSON string written straight into UTF-8 bytes, for texts built without
/// a tree of values (a manifest, a session token's claims): quote,
/// backslash and control characters escaped, everything else (UTF-8
/// included) as it is. Any JSON reader reads back the value given.
public enum JSONStringText {
    /// Appends `value`, quoted and escaped, to `bytes`.
    public static func append(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        if value.utf8.withContiguousStorageIfAvailable({ escape($0, into: &bytes) }) == nil {
            Array(value.utf8).withUnsafeBufferPointer { escape($0, into: &bytes) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func escape(_ utf8: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        // Most texts need no escape: copied in one append.
        guard utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            bytes.append(contentsOf: utf8)
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                for nibble in [byte >> 4, byte & 0xF] { bytes.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10) }
            default:
                bytes.append(byte)
            }
        }
    }
}
