/// A signed text of `name=value` lines joined by LF, no final LF (spec §19),
/// written straight into bytes: each value is appended as it is, as its
/// base64 or as a decimal number, with no string made per line.
struct SignedLines {
    private(set) var bytes: [UInt8]

    init(header: String, capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: header.utf8)
    }

    private mutating func start(_ name: StaticString) {
        bytes.append(UInt8(ascii: "\n"))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "="))
    }

    /// A value that cannot hold a line break (hex, base64, a number).
    mutating func plain(_ name: StaticString, _ value: String) {
        start(name)
        bytes.append(contentsOf: value.utf8)
    }

    mutating func number(_ name: StaticString, _ value: Int64) {
        plain(name, String(value))
    }

    /// Text a client chose, as base64 of its UTF-8.
    mutating func text(_ name: StaticString, _ value: String) {
        start(name)
        Base64.append(utf8: value, to: &bytes)
    }

    mutating func base64(_ name: StaticString, _ value: [UInt8]) {
        start(name)
        value.withUnsafeBufferPointer { Base64.append($0, to: &bytes) }
    }
}
