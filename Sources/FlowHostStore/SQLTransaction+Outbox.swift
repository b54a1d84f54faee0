/// The SQL of the delivery outbox.
extension SQLTransaction {
    func outbox(includeDelivered: Bool) throws -> [OutboxMessage] {
        let filter = includeDelivered ? "" : " WHERE delivered_at IS NULL"
        return try db.query("SELECT \(Self.outboxColumns) FROM outbox\(filter) ORDER BY id", [], Self.outboxMessage)
    }

    func enqueue(_ message: OutboxMessage) throws -> Int64 {
        try db.insert(
            "INSERT INTO outbox (user_id, kind, sealed_body, created_at, delivered_at) VALUES (?, ?, ?, ?, ?)",
            [.text(message.userID), .text(message.kind), .blob(message.sealedBody), .integer(message.createdAt), .optional(message.deliveredAt)])
    }

    func markDelivered(outboxID: Int64, at: Int64) throws {
        try db.run("UPDATE outbox SET delivered_at = ?, lease_until = NULL WHERE id = ?", [.integer(at), .integer(outboxID)])
    }

    func claimOutboxMessage(id: Int64, now: Int64, leaseUntil: Int64) throws -> OutboxMessage? {
        let taken = try db.run(
            """
            UPDATE outbox SET lease_until = ? WHERE id = ? AND delivered_at IS NULL AND failed_at IS NULL
              AND COALESCE(next_attempt_at, 0) <= ? AND COALESCE(lease_until, 0) <= ?
            """, [.integer(leaseUntil), .integer(id), .integer(now), .integer(now)])
        guard taken == 1 else { return nil }
        return try db.query("SELECT \(Self.outboxColumns) FROM outbox WHERE id = ?", [.integer(id)], Self.outboxMessage).first
    }

    func dueOutboxMessages(now: Int64, limit: Int) throws -> [Int64] {
        try db.query(
            """
            SELECT id FROM outbox WHERE delivered_at IS NULL AND failed_at IS NULL
              AND COALESCE(next_attempt_at, 0) <= ? AND COALESCE(lease_until, 0) <= ? ORDER BY id LIMIT ?
            """, [.integer(now), .integer(now), .int(limit)]
        ) { $0.int64(0) }
    }

    func recordDeliveryFailure(outboxID: Int64, at: Int64, reason: String, retryAt: Int64?) throws {
        try db.run(
            """
            UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, lease_until = NULL,
                              failed_at = CASE WHEN CAST(? AS BIGINT) IS NULL THEN CAST(? AS BIGINT) ELSE NULL END
            WHERE id = ?
            """, [.text(reason), .optional(retryAt), .optional(retryAt), .integer(at), .integer(outboxID)])
    }
}
