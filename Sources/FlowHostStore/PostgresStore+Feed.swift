/// The change feed on PostgreSQL, where appends draw their numbers
/// concurrently and commit in any order (`feed/v5-shared-append-lock`): each
/// append holds the feed's lock shared from before it draws its number until
/// it ends.
extension PostgresStore {
    /// Events after `sequence` whose topic is in `topics`, oldest first, at
    /// most `limit`, none of which a later read could find a lower-numbered
    /// event before: this read takes the feed's lock alone, so once it holds
    /// it no append is between its number and its end, and every number drawn
    /// so far is final.
    public func readFeed(after sequence: Int64, topics: [String], limit: Int) throws -> FeedPage {
        do {
            return try readCommitted { tx in
                // A bounded wait: a writer that holds its transaction open
                // after appending must not stop the reader's host, nor the
                // appends queued behind the reader's request, for long.
                _ = try tx.query("SELECT set_config('lock_timeout', '100ms', true)", []) { _ in 0 }
                _ = try tx.query("SELECT pg_advisory_xact_lock(\(FeedSchema.appendLock))", []) { _ in 0 }
                let drawn = try tx.feedNumberDrawn()
                // A statement after the lock: it sees every append that ended before it.
                return FeedPage(read: try tx.feedEvents(after: sequence, topics: topics, limit: limit), after: sequence, limit: limit, settled: drawn)
            }
        } catch let error as PostgresError where error.sqlState == "55P03" {
            throw FeedAppendsRunning()
        }
    }

    /// Appends one event in a transaction of its own (a flow's publish): its
    /// BEGIN, the append and the COMMIT go to the server in one round trip,
    /// which is most of the time from a publish to its delivery.
    public func appendFeedEventAlone(topic: String, payload: String, at: Int64, durability: Durability) throws -> Int64 {
        try writeOneStatement(durability: durability) { try $0.appendFeedEvent(topic: topic, payload: payload, at: at) }
    }

    /// Where a subscription made now starts: the highest number drawn, so
    /// that an append still running with a lower number counts as published
    /// before (a reader never waits on it), and every event published after
    /// is above it.
    public func feedSubscriptionStart() throws -> Int64 {
        try read { try $0.feedNumberDrawn() }
    }
}
