/// The change feed's part of a transaction.
public protocol FeedReader {
    /// The newest event's sequence number (0 when the feed is empty).
    func latestFeedSequence() throws -> Int64
    /// Events after `sequence` whose topic is in `topics`, oldest first.
    func feedEvents(after sequence: Int64, topics: [String], limit: Int) throws -> [StoredFeedEvent]
}

public protocol FeedWriter: FeedReader {
    /// Appends an event; returns its sequence number.
    @discardableResult func appendFeedEvent(topic: String, payload: String, at: Int64) throws -> Int64
    /// Drops events older than `before` (seconds since the epoch).
    @discardableResult func pruneFeed(before: Int64) throws -> Int
}

public struct StoredFeedEvent: Sendable, Equatable {
    public let sequence: Int64
    public let topic: String
    /// JSON text.
    public let payload: String
    public let at: Int64
}
