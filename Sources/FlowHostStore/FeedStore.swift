/// The change feed: events appended in the transaction of the change they
/// describe, read by every host after its own cursor. The store keeps it
/// itself, beside its transactions: it is how stores wake one another
/// (`FeedWake` for SQLite, NOTIFY for PostgreSQL), and every domain appends to it.
extension StoreReader {
    /// The newest event's sequence number (0 when the feed is empty).
    public func latestFeedSequence() throws -> Int64 {
        try query("SELECT COALESCE(MAX(sequence), 0) FROM feed_event", []) { $0.int64(0) }.first ?? 0
    }

    /// PostgreSQL: the keys that authenticate a feed notice carrying its
    /// row (`feed/v4-notice-rows`); nil where there are none.
    public func feedNoticeKeys() throws -> FeedNoticeKeys? {
        try query("SELECT encode(inner_key, 'hex'), encode(outer_key, 'hex') FROM feed_notice_key LIMIT 1", []) {
            FeedNoticeKeys(innerHex: $0.string(0), outerHex: $0.string(1))
        }.first ?? nil
    }

    /// Events after `sequence` whose topic is in `topics`, oldest first.
    public func feedEvents(after sequence: Int64, topics: [String], limit: Int) throws -> [StoredFeedEvent] {
        guard !topics.isEmpty else { return [] }
        // One statement per topic count keeps the statement cache small and exact.
        let marks = Array(repeating: "?", count: topics.count).joined(separator: ", ")
        return try query(
            "SELECT sequence, topic, payload, at FROM feed_event WHERE sequence > ? AND topic IN (\(marks)) ORDER BY sequence LIMIT ?",
            [.integer(sequence)] + topics.map { .text($0) } + [.int(limit)]
        ) { StoredFeedEvent(sequence: $0.int64(0), topic: $0.string(1), payload: $0.string(2), at: $0.int64(3)) }
    }
}

extension StoreWriter {
    /// Appends an event; returns its sequence number.
    @discardableResult public func appendFeedEvent(topic: String, payload: String, at: Int64) throws -> Int64 {
        try insert("INSERT INTO feed_event (topic, payload, at) VALUES (?, ?, ?)", [.text(topic), .text(payload), .integer(at)], returning: "sequence")
    }

    /// Drops events older than `before` (seconds since the epoch).
    @discardableResult public func pruneFeed(before: Int64) throws -> Int {
        try run("DELETE FROM feed_event WHERE at < ?", [.integer(before)])
    }
}

public struct StoredFeedEvent: Sendable, Equatable {
    public let sequence: Int64
    public let topic: String
    /// JSON text.
    public let payload: String
    public let at: Int64
}
