import FlowHostStore

/// The SQL of the delivery outbox.
extension OutboxMessage {
    static let columns = "id, user_id, kind, sealed_body, created_at, delivered_at, attempts, last_error, failed_at"

    init(row: SQLRow) {
        self.init(
            id: row.int64(0), userID: row.string(1), kind: row.string(2), sealedBody: row.blob(3), createdAt: row.int64(4),
            deliveredAt: row.optionalInt64(5), attempts: row.int(6), lastError: row.optionalString(7), failedAt: row.optionalInt64(8))
    }
}

extension StoreReader {
    public func outbox(includeDelivered: Bool) throws -> [OutboxMessage] {
        let filter = includeDelivered ? "" : " WHERE delivered_at IS NULL"
        return try query("SELECT \(OutboxMessage.columns) FROM outbox\(filter) ORDER BY id", [], OutboxMessage.init(row:))
    }

    /// Undelivered messages of `kind` that are due and not leased (oldest first).
    public func dueOutboxMessages(now: Int64, kind: String, limit: Int) throws -> [Int64] {
        try query(
            """
            SELECT id FROM outbox WHERE delivered_at IS NULL AND failed_at IS NULL AND kind = ?
              AND COALESCE(next_attempt_at, 0) <= ? AND COALESCE(lease_until, 0) <= ? ORDER BY id LIMIT ?
            """, [.text(kind), .integer(now), .integer(now), .int(limit)]
        ) { $0.int64(0) }
    }
}

extension StoreWriter {
    @discardableResult public func enqueue(_ message: OutboxMessage) throws -> Int64 {
        try insert(
            "INSERT INTO outbox (user_id, kind, sealed_body, created_at, delivered_at) VALUES (?, ?, ?, ?, ?)",
            [.text(message.userID), .text(message.kind), .blob(message.sealedBody), .integer(message.createdAt), .optional(message.deliveredAt)])
    }

    /// Deletes messages delivered or given up on before `before`; returns how many.
    @discardableResult public func pruneOutbox(before: Int64) throws -> Int {
        try run("DELETE FROM outbox WHERE delivered_at < ?", [.integer(before)])
            + run("DELETE FROM outbox WHERE failed_at < ?", [.integer(before)])
    }

    /// A message not to be run before `until` (its first run, uncounted).
    public func postponeOutboxMessage(id: Int64, until: Int64) throws {
        try run("UPDATE outbox SET next_attempt_at = ? WHERE id = ?", [.integer(until), .integer(id)])
    }

    public func markDelivered(outboxID: Int64, at: Int64) throws {
        try run("UPDATE outbox SET delivered_at = ?, lease_until = NULL WHERE id = ?", [.integer(at), .integer(outboxID)])
    }

    /// Takes an undelivered message of `kind` for delivery until `leaseUntil`, unless
    /// another process holds it or it is not due; returns it when taken.
    public func claimOutboxMessage(id: Int64, kind: String, now: Int64, leaseUntil: Int64) throws -> OutboxMessage? {
        let taken = try run(
            """
            UPDATE outbox SET lease_until = ? WHERE id = ? AND kind = ? AND delivered_at IS NULL AND failed_at IS NULL
              AND COALESCE(next_attempt_at, 0) <= ? AND COALESCE(lease_until, 0) <= ?
            """, [.integer(leaseUntil), .integer(id), .text(kind), .integer(now), .integer(now)])
        guard taken == 1 else { return nil }
        return try query("SELECT \(OutboxMessage.columns) FROM outbox WHERE id = ?", [.integer(id)], OutboxMessage.init(row:)).first
    }

    /// A delivery attempt failed: counted, with a reason that holds no secret;
    /// tried again at `retryAt`, or given up when it is nil.
    public func recordDeliveryFailure(outboxID: Int64, at: Int64, reason: String, retryAt: Int64?) throws {
        try run(
            """
            UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, lease_until = NULL,
                              failed_at = CASE WHEN CAST(? AS BIGINT) IS NULL THEN CAST(? AS BIGINT) ELSE NULL END
            WHERE id = ?
            """, [.text(reason), .optional(retryAt), .optional(retryAt), .integer(at), .integer(outboxID)])
    }
}
