/// Measures how deeply a JSON text nests, without parsing it.
///
/// Run on every frame before the parser so that a hostile line such as
/// 100 000 `[` is refused in one linear pass, whatever the parser's own limit.
/// Brackets inside strings (with escapes) are not counted.
public enum NestingDepth {
    /// True when some point of `bytes` is nested deeper than `limit`.
    public static func exceeds(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return false
    }
}
