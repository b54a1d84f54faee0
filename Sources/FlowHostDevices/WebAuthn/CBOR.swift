import FlowHostPOSIX

/// A CBOR data item (RFC 8949), as much of CBOR as WebAuthn uses: what
/// `CBORReader` gives back.
public indirect enum CBOR: Equatable, Sendable {
    case unsigned(UInt64)
    /// The integer −1 − n, kept as n so that every negative fits.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// In the order read; the reader refuses a key given twice.
    case map([(key: CBOR, value: CBOR)])
    case bool(Bool)
    case null

    public static func == (lhs: CBOR, rhs: CBOR) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.text(let a), .text(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.map(let a), .map(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    /// The integer, when it is one that fits an `Int`.
    public var intValue: Int? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: nil
        }
    }

    /// The value under `key` in a map (nil for anything else).
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    public subscript(text key: String) -> CBOR? { self[.text(key)] }
    public subscript(int key: Int) -> CBOR? { self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))] }
}

/// Why bytes are not the CBOR a WebAuthn answer may carry.
public struct CBORError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A strict, bounded CBOR reader for what authenticators send (attestation
/// objects, COSE keys, extensions), without Foundation. It reads definite
/// lengths only; unsigned and negative integers, byte and text strings
/// (text valid UTF-8), arrays, maps, false, true and null. Everything else
/// is refused: indefinite lengths, tags, floats, other simple values, a
/// map key given twice, an argument longer than it needs to be, nesting
/// deeper than `maxDepth`, more than `maxItems` items in all, and a length
/// that runs past the input. An item is read from a slice; what follows
/// it is the caller's (authenticator data carries a COSE key, then extensions).
public struct CBORReader {
    public static let maxDepth = 8
    public static let maxItems = 512

    private let bytes: [UInt8]
    public private(set) var offset: Int
    private var items = 0

    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// One whole item that is all of `bytes`.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        var reader = CBORReader(bytes)
        let item = try reader.read()
        guard reader.offset == bytes.count else { throw CBORError("\(bytes.count - reader.offset) bytes after the item") }
        return item
    }

    /// The next item; `offset` moves past it.
    public mutating func read() throws(CBORError) -> CBOR { try item(depth: 0) }

    private mutating func byte() throws(CBORError) -> UInt8 {
        guard offset < bytes.count else { throw CBORError("the input ends inside an item") }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func take(_ count: UInt64) throws(CBORError) -> ArraySlice<UInt8> {
        guard count <= UInt64(bytes.count - offset) else { throw CBORError("a length of \(count) runs past the input") }
        let end = offset + Int(count)
        defer { offset = end }
        return bytes[offset..<end]
    }

    /// The argument of an initial byte's additional information, in its shortest form only.
    private mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
        let width: Int
        switch info {
        case 0..<24: return UInt64(info)
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        case 31: throw CBORError("indefinite lengths are refused")
        default: throw CBORError("reserved additional information \(info)")
        }
        var value: UInt64 = 0
        for _ in 0..<width { value = value << 8 | UInt64(try byte()) }
        let shortest: UInt64 = switch width {
        case 1: 24
        case 2: 0x100
        case 4: 0x1_0000
        default: 0x1_0000_0000
        }
        guard value >= shortest else { throw CBORError("an argument longer than it needs to be") }
        return value
    }

    private mutating func item(depth: Int) throws(CBORError) -> CBOR {
        guard depth <= Self.maxDepth else { throw CBORError("nested deeper than \(Self.maxDepth)") }
        items += 1
        guard items <= Self.maxItems else { throw CBORError("more than \(Self.maxItems) items") }
        let initial = try byte()
        let major = initial >> 5, info = initial & 0x1f
        switch major {
        case 0: return .unsigned(try argument(info))
        case 1: return .negative(try argument(info))
        case 2: return .bytes(Array(try take(try argument(info))))
        case 3:
            guard let text = String(validUTF8: Array(try take(try argument(info)))) else {
                throw CBORError("a text string that is not UTF-8")
            }
            return .text(text)
        case 4:
            let count = try argument(info)
            guard count <= UInt64(Self.maxItems) else { throw CBORError("an array of \(count) items") }
            var elements: [CBOR] = []
            elements.reserveCapacity(Int(count))
            for _ in 0..<count { elements.append(try item(depth: depth + 1)) }
            return .array(elements)
        case 5:
            let count = try argument(info)
            guard count <= UInt64(Self.maxItems) else { throw CBORError("a map of \(count) entries") }
            var entries: [(key: CBOR, value: CBOR)] = []
            for _ in 0..<count {
                let key = try item(depth: depth + 1)
                guard !entries.contains(where: { $0.key == key }) else { throw CBORError("a map key given twice") }
                entries.append((key, try item(depth: depth + 1)))
            }
            return .map(entries)
        case 6: throw CBORError("tags are refused")
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            default: throw CBORError("floats and simple values other than false, true and null are refused")
            }
        }
    }
}
