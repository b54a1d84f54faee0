/// The change feed: events appended in the transaction of the change they
/// describe, read by every host after its own cursor. The store keeps it
/// itself, beside its transactions: it is how stores wake one another
/// (`FeedWake` for SQLite, NOTIFY for PostgreSQL), and every domain appends to it.
extension StoreReader {
    /// The newest event's sequence number (0 when the feed is empty).
    public func latestFeedSequence() throws -> Int64 {
        try query("SELECT COALESCE(MAX(sequence), 0) FROM feed_event", []) { $0.int64(0) }.first ?? 0
    }

    /// PostgreSQL: the highest sequence number any append has drawn,
    /// committed or not (a sequence is outside transactions); 0 before the first.
    func feedNumberDrawn() throws -> Int64 {
        try query("SELECT COALESCE(pg_sequence_last_value('feed_event_number'::regclass), 0)", []) { $0.int64(0) }.first ?? 0
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

/// A read of the feed and how far it is complete: every event numbered
/// after the read's cursor and up to `through`, on the topics read, is in
/// `events` or will never commit.
public struct FeedPage: Sendable, Equatable {
    public let events: [StoredFeedEvent]
    public let through: Int64

    public init(events: [StoredFeedEvent], through: Int64) {
        self.events = events
        self.through = through
    }

    /// A read of at most `limit` events after `sequence`, when every number
    /// up to `settled` is final: a page cut short by the limit is complete
    /// through its last event, a shorter one through `settled`.
    init(read events: [StoredFeedEvent], after sequence: Int64, limit: Int, settled: Int64) {
        self.init(events: events, through: events.count < limit ? max(settled, sequence) : events.last?.sequence ?? sequence)
    }
}

/// A read of the feed (PostgreSQL) found an append still running after a
/// short wait: a writer holds its transaction open. The reader tries again
/// at its next wake; the feed's order holds meanwhile.
public struct FeedAppendsRunning: Error, CustomStringConvertible {
    public var description: String { "an append to the change feed is still running" }
}

extension FlowStore {
    /// Events after `sequence` whose topic is in `topics`, oldest first, at
    /// most `limit`, none of which a later read could find a lower-numbered
    /// event before. With SQLite one transaction writes at a time, so the
    /// numbers a read sees are final (PostgreSQL: `PostgresStore+Feed.swift`).
    public func readFeed(after sequence: Int64, topics: [String], limit: Int) throws -> FeedPage {
        try read { tx in
            FeedPage(read: try tx.feedEvents(after: sequence, topics: topics, limit: limit), after: sequence, limit: limit, settled: try tx.latestFeedSequence())
        }
    }

    /// Appends one event in a transaction of its own (a flow's publish).
    public func appendFeedEventAlone(topic: String, payload: String, at: Int64, durability: Durability) throws -> Int64 {
        try write(durability: durability) { try $0.appendFeedEvent(topic: topic, payload: payload, at: at) }
    }

    /// Where a subscription made now starts: every event published after
    /// it is above it.
    public func feedSubscriptionStart() throws -> Int64 {
        try read { try $0.latestFeedSequence() }
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
