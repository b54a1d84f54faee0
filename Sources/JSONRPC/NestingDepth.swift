#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Measures how deeply a JSON text nests, without parsing it.
///
/// Run on every frame before the parser so that a hostile line such as
/// 100 000 `[` is refused in one linear pass, whatever the parser's own limit.
/// Brackets inside strings (with escapes) are not counted.
public enum NestingDepth {
    /// True when some point of `bytes` is nested deeper than `limit`.
    public static func exceeds(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Bool {
        // A pointer walk that skips strings with memchr: every request
        // passes through here, and the byte-at-a-time state machine this
        // replaces cost 25 instructions a byte, a twentieth of an echo.
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        let count = bytes.count
        var depth = 0
        var index = 0
        while index < count {
            let byte = base[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                // To the closing quote: the next quote with no backslash
                // before it; memchr finds both a word at a time.
                while index < count {
                    guard let quote = memchr(base + index, Int32(UInt8(ascii: "\"")), count - index) else {
                        index = count
                        break
                    }
                    let quoteIndex = base.distance(to: quote.assumingMemoryBound(to: UInt8.self))
                    if let backslash = memchr(base + index, Int32(UInt8(ascii: "\\")), quoteIndex - index) {
                        index = base.distance(to: backslash.assumingMemoryBound(to: UInt8.self)) + 2  // past the escaped byte
                    } else {
                        index = quoteIndex + 1
                        break
                    }
                }
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
