import CSodium

/// What one NOTIFY of the feed trigger said (`feed/v4-notice-rows`): a
/// small row itself, as `mac\nsequence\nat\ntopic\npayload` (a topic holds
/// no newline; the payload is the rest), or a sequence number alone.
public enum FeedNotice: Equatable, Sendable {
    /// A row, with the MAC its notice gave and the text it covers: the
    /// reader takes it only when the MAC checks out under its store's keys
    /// (`FeedNoticeKeys.authenticates`).
    case row(StoredFeedEvent, mac: String, text: String)
    case sequence(Int64)
    /// Neither (a trigger of another version, or a notice lost to the bound
    /// on those kept): only a read of the table tells what came.
    case unreadable

    public init(_ text: Substring) {
        if let sequence = Int64(text) {
            self = .sequence(sequence)
            return
        }
        guard let newline = text.utf8.firstIndex(of: UInt8(ascii: "\n")) else {
            self = .unreadable
            return
        }
        let mac = text[..<newline]
        let covered = text[text.utf8.index(after: newline)...]
        let parts = covered.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
        guard !mac.isEmpty, parts.count == 4, let sequence = Int64(parts[0]), let at = Int64(parts[1]), !parts[2].isEmpty else {
            self = .unreadable
            return
        }
        self = .row(StoredFeedEvent(sequence: sequence, topic: String(parts[2]), payload: String(parts[3]), at: at), mac: String(mac), text: String(covered))
    }
}

/// The store's two notice keys (`feed_notice_key`), which only its own roles can read.
public struct FeedNoticeKeys: Sendable {
    let inner: [UInt8]
    let outer: [UInt8]

    /// From the keys' hex; nil unless both are at least 16 bytes.
    public init?(innerHex: String, outerHex: String) {
        guard let inner = Self.bytes(innerHex), let outer = Self.bytes(outerHex), inner.count >= 16, outer.count >= 16 else { return nil }
        self.inner = inner
        self.outer = outer
    }

    /// Whether `mac` (hex) is SHA-256(outer ‖ SHA-256(inner ‖ text)),
    /// compared in time that does not depend on where they differ.
    public func authenticates(_ text: String, mac: String) -> Bool {
        guard let given = Self.bytes(mac), given.count == 32 else { return false }
        let expected = Self.sha256(outer + Self.sha256(inner + Array(text.utf8)))
        return sodium_memcmp(given, expected, 32) == 0
    }

    /// The MAC of `text`, as the trigger makes it (for tests).
    func mac(of text: String) -> String {
        let digits = Array("0123456789abcdef")
        var hex = ""
        for byte in Self.sha256(outer + Self.sha256(inner + Array(text.utf8))) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0xF)])
        }
        return hex
    }

    private static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest
    }

    private static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

/// A wake-up that keeps what its notices said, for a reader that can use
/// the rows they carry instead of reading them (the machine's listener).
public protocol FeedNoticeSource: AnyObject {
    /// Whether notices are kept at all (nobody takes them otherwise).
    var keepsNotices: Bool { get set }
    /// The notices kept since the last call, in the order they came.
    func takeNotices() -> [FeedNotice]
}
