extension SQLTransaction: FeedWriter {
    func latestFeedSequence() throws -> Int64 {
        try db.query("SELECT COALESCE(MAX(sequence), 0) FROM feed_event", []) { $0.int64(0) }.first ?? 0
    }

    func feedEvents(after sequence: Int64, topics: [String], limit: Int) throws -> [StoredFeedEvent] {
        guard !topics.isEmpty else { return [] }
        // One statement per topic count keeps the statement cache small and exact.
        let marks = Array(repeating: "?", count: topics.count).joined(separator: ", ")
        return try db.query(
            "SELECT sequence, topic, payload, at FROM feed_event WHERE sequence > ? AND topic IN (\(marks)) ORDER BY sequence LIMIT ?",
            [.integer(sequence)] + topics.map { .text($0) } + [.int(limit)]
        ) { StoredFeedEvent(sequence: $0.int64(0), topic: $0.string(1), payload: $0.string(2), at: $0.int64(3)) }
    }

    func appendFeedEvent(topic: String, payload: String, at: Int64) throws -> Int64 {
        try db.insert("INSERT INTO feed_event (topic, payload, at) VALUES (?, ?, ?)", [.text(topic), .text(payload), .integer(at)], returning: "sequence")
    }

    func pruneFeed(before: Int64) throws -> Int {
        try db.run("DELETE FROM feed_event WHERE at < ?", [.integer(before)])
    }
}
