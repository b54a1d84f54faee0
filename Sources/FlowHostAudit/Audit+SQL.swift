import FlowHostStore

/// The SQL of the audit and its counts.
extension StoreReader {
    /// Newest first; all users when `userID` is nil.
    public func auditEntries(userID: String?, limit: Int) throws -> [AuditEntry] {
        let map: (SQLRow) -> AuditEntry = {
            AuditEntry(
                id: $0.int64(0), at: $0.int64(1), userID: $0.optionalString(2), deviceID: $0.optionalString(3), action: $0.string(4),
                outcome: $0.string(5), detail: $0.optionalString(6))
        }
        let columns = "id, at, user_id, device_id, action, outcome, detail"
        if let userID {
            return try query("SELECT \(columns) FROM audit WHERE user_id = ? ORDER BY id DESC LIMIT ?", [.text(userID), .int(limit)], map)
        }
        return try query("SELECT \(columns) FROM audit ORDER BY id DESC LIMIT ?", [.int(limit)], map)
    }

    /// Rows with `after < id <= through`, oldest first: the stream's read.
    public func auditEntries(after: Int64, through: Int64, limit: Int) throws -> [AuditEntry] {
        try query(
            "SELECT id, at, user_id, device_id, action, outcome, detail FROM audit WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
            [.integer(after), .integer(through), .int(limit)]
        ) {
            AuditEntry(
                id: $0.int64(0), at: $0.int64(1), userID: $0.optionalString(2), deviceID: $0.optionalString(3), action: $0.string(4),
                outcome: $0.string(5), detail: $0.optionalString(6))
        }
    }

    /// PostgreSQL: the highest id the log's sequence has given, committed
    /// or not (the sequence is outside transactions); 0 before the first.
    func auditHighestGiven() throws -> Int64 {
        try query("SELECT COALESCE(pg_sequence_last_value(pg_get_serial_sequence('audit', 'id')::regclass), 0)", []) { $0.int64(0) }.first ?? 0
    }

    /// PostgreSQL: whether every transaction with an id up to `xid` has
    /// finished, as this transaction sees it. (A snapshot's xmin is the
    /// oldest transaction still running; its xmax is only one past the
    /// newest that finished, so a running transaction newer than that is
    /// in no snapshot's list: a snapshot's xmax cannot bound the running.)
    func finished(through xid: String) throws -> Bool {
        try query(
            "SELECT CASE WHEN pg_snapshot_xmin(pg_current_snapshot()) > CAST(? AS xid8) THEN 1 ELSE 0 END",
            [.text(xid)]
        ) { $0.bool(0) }.first ?? false
    }

    /// Newest hour first; all users when `userID` is nil.
    public func auditCounts(userID: String?, limit: Int) throws -> [AuditCount] {
        let columns = "hour, user_id, action, outcome, count, last_at"
        let map: (SQLRow) -> AuditCount = {
            AuditCount(hour: $0.int64(0), userID: $0.string(1), action: $0.string(2), outcome: $0.string(3), count: $0.int64(4), lastAt: $0.int64(5))
        }
        if let userID {
            return try query(
                "SELECT \(columns) FROM audit_count WHERE user_id = ? ORDER BY hour DESC, action, outcome LIMIT ?",
                [.text(userID), .int(limit)], map)
        }
        return try query("SELECT \(columns) FROM audit_count ORDER BY hour DESC, user_id, action, outcome LIMIT ?", [.int(limit)], map)
    }
}

extension StoreWriter {
    /// Deletes the hourly counts of hours before `before` (the database
    /// refuses any younger than 90 days); returns how many.
    @discardableResult public func pruneAuditCounts(before: Int64) throws -> Int {
        try run("DELETE FROM audit_count WHERE hour < ?", [.integer(before)])
    }

    /// Deletes the log's rows from before `before`, oldest id first, up to the
    /// first row that is not (the database refuses any younger than 90 days);
    /// returns how many. Rows are appended in time, so this reads only what it
    /// deletes, through the primary key; a row a skewed clock dated earlier
    /// than the one before it goes at a later sweep. The highest row always
    /// stays: it is what keeps an id from ever being given twice.
    @discardableResult public func pruneAudit(before: Int64) throws -> Int {
        try run(
            """
            DELETE FROM audit WHERE id < COALESCE(
                (SELECT id FROM audit WHERE at >= ? ORDER BY id LIMIT 1),
                (SELECT MAX(id) FROM audit))
            """, [.integer(before)])
    }

    /// PostgreSQL: this transaction's own id, taken now (it commits
    /// nothing else): every transaction that took one before it has a lower one.
    func takeTransactionID() throws -> String {
        try query("SELECT pg_current_xact_id()::text", []) { $0.string(0) }.first ?? ""
    }

    /// `append` without the row's id, deferred (`runDeferred`).
    public func appendDeferred(_ entry: AuditEntry) throws {
        try runDeferred(AuditEntry.insertSQL, entry.insertValues)
    }

    @discardableResult public func append(_ entry: AuditEntry) throws -> Int64 {
        try insert(AuditEntry.insertSQL, entry.insertValues)
    }

    /// Adds one to the hour's count of like events (see `AuditCount`).
    public func count(action: String, outcome: String, userID: String?, at: Int64) throws {
        try run(
            """
            INSERT INTO audit_count (hour, user_id, action, outcome, count, last_at) VALUES (?, ?, ?, ?, 1, ?)
            ON CONFLICT(hour, user_id, action, outcome) DO UPDATE SET count = audit_count.count + 1, last_at = excluded.last_at
            """, [.integer(at - at % 3600), .text(userID ?? ""), .text(action), .text(outcome), .integer(at)])
    }
}

extension AuditEntry {
    static let insertSQL = "INSERT INTO audit (at, user_id, device_id, action, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)"

    var insertValues: [SQLValue] {
        [.integer(at), .optional(userID), .optional(deviceID), .text(action), .text(outcome), .optional(detail)]
    }
}
