/// Lower-case hexadecimal: the one spelling of bytes as text (ids, hashes,
/// temporary names).
public enum Hex {
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(utf8: text)
    }
}
