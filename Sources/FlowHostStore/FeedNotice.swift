/// What one NOTIFY of the feed trigger said (`feed/v4-notice-rows`): the
/// row itself when it fits in a notice, as `sequence\nat\ntopic\npayload`
/// (a topic holds no newline; the payload is the rest), or its sequence
/// number alone.
public enum FeedNotice: Equatable, Sendable {
    case row(StoredFeedEvent)
    case sequence(Int64)
    /// Neither (a trigger of another version, or a notice lost to the bound
    /// on those kept): only a read of the table tells what came.
    case unreadable

    public init(_ text: Substring) {
        let parts = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
        guard let sequence = Int64(parts[0]) else {
            self = .unreadable
            return
        }
        switch parts.count {
        case 1: self = .sequence(sequence)
        case 4:
            guard let at = Int64(parts[1]), !parts[2].isEmpty else {
                self = .unreadable
                return
            }
            self = .row(StoredFeedEvent(sequence: sequence, topic: String(parts[2]), payload: String(parts[3]), at: at))
        default: self = .unreadable
        }
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
