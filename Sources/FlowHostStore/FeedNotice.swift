/// What one NOTIFY of the feed trigger said (`feed/v4-notice-rows`): a
/// small row itself, as `key\nsequence\nat\ntopic\npayload` (the store's
/// notice key; a topic holds no newline; the payload is the rest), or a
/// sequence number alone.
public enum FeedNotice: Equatable, Sendable {
    /// A row, with the key its notice named: the reader takes it only when
    /// that is its store's key (`FeedNotice.isKey`).
    case row(key: String, StoredFeedEvent)
    case sequence(Int64)
    /// Neither (a trigger of another version, or a notice lost to the bound
    /// on those kept): only a read of the table tells what came.
    case unreadable

    public init(_ text: Substring) {
        let parts = text.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false)
        if parts.count == 1, let sequence = Int64(parts[0]) {
            self = .sequence(sequence)
            return
        }
        guard parts.count == 5, !parts[0].isEmpty, let sequence = Int64(parts[1]), let at = Int64(parts[2]), !parts[3].isEmpty else {
            self = .unreadable
            return
        }
        self = .row(key: String(parts[0]), StoredFeedEvent(sequence: sequence, topic: String(parts[3]), payload: String(parts[4]), at: at))
    }

    /// Whether `named` is `key`, compared in time that does not depend on
    /// where they differ.
    public static func isKey(_ named: String, _ key: String) -> Bool {
        let named = Array(named.utf8)
        let key = Array(key.utf8)
        guard named.count == key.count, !key.isEmpty else { return false }
        var difference: UInt8 = 0
        for index in key.indices { difference |= named[index] ^ key[index] }
        return difference == 0
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
