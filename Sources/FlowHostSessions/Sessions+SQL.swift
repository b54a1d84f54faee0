import FlowHostStore

/// The SQL of sessions.
extension SessionRecord {
    static let columns = "session_id, user_id, device_id, workflow, created_at, last_seen_at, ended_at, end_reason"

    init(row: SQLRow) {
        self.init(
            sessionID: row.string(0), userID: row.string(1), deviceID: row.string(2), workflow: row.string(3), createdAt: row.int64(4),
            lastSeenAt: row.int64(5), endedAt: row.optionalInt64(6), endReason: row.optionalString(7))
    }
}

extension StoreReader {
    public func session(_ sessionID: String) throws -> SessionRecord? {
        try query("SELECT \(SessionRecord.columns) FROM session WHERE session_id = ?", [.text(sessionID)], SessionRecord.init(row:)).first
    }

    /// The user's sessions that have not ended.
    public func openSessions(userID: String) throws -> [SessionRecord] {
        try query(
            "SELECT \(SessionRecord.columns) FROM session WHERE user_id = ? AND ended_at IS NULL ORDER BY created_at, session_id",
            [.text(userID)], SessionRecord.init(row:))
    }
}

extension StoreWriter {
    /// Deferred (`runDeferred`): a session id is new, and nothing reads the insert's answer.
    public func insert(_ session: SessionRecord) throws {
        try runDeferred(
            """
            INSERT INTO session (session_id, user_id, device_id, workflow, created_at, last_seen_at, ended_at, end_reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(session.sessionID), .text(session.userID), .text(session.deviceID), .text(session.workflow),
                .integer(session.createdAt), .integer(session.lastSeenAt), .optional(session.endedAt), .optional(session.endReason),
            ])
    }

    /// Ends one session if it is open, deferred (`runDeferred`): the
    /// caller has read in this transaction whether it is, which the
    /// transaction's isolation keeps true until it commits.
    public func endSession(_ sessionID: String, at: Int64, reason: String) throws {
        try runDeferred(
            "UPDATE session SET ended_at = ?, end_reason = ? WHERE session_id = ? AND ended_at IS NULL",
            [.integer(at), .text(reason), .text(sessionID)])
    }

    /// Ends every open session of the user (on one device, or on all when
    /// `deviceID` is nil); returns how many ended.
    @discardableResult public func endSessions(userID: String, deviceID: String?, at: Int64, reason: String) throws -> Int {
        if let deviceID {
            return try run(
                "UPDATE session SET ended_at = ?, end_reason = ? WHERE user_id = ? AND device_id = ? AND ended_at IS NULL",
                [.integer(at), .text(reason), .text(userID), .text(deviceID)])
        }
        return try run(
            "UPDATE session SET ended_at = ?, end_reason = ? WHERE user_id = ? AND ended_at IS NULL",
            [.integer(at), .text(reason), .text(userID)])
    }

    /// `endExpiredSessions` without the count, deferred (`runDeferred`):
    /// the sweep a login makes before it opens its session.
    public func endExpiredSessionsDeferred(idleBefore: Int64, createdBefore: Int64, at: Int64) throws {
        try runDeferred(ExpiredSessions.pastLifetime, [.integer(at), .integer(createdBefore)])
        try runDeferred(ExpiredSessions.idle, [.integer(at), .integer(idleBefore)])
    }

    /// Ends every open session idle since before `idleBefore` or created
    /// before `createdBefore`; returns how many ended.
    @discardableResult public func endExpiredSessions(idleBefore: Int64, createdBefore: Int64, at: Int64) throws -> Int {
        let lifetime = try run(ExpiredSessions.pastLifetime, [.integer(at), .integer(createdBefore)])
        let idle = try run(ExpiredSessions.idle, [.integer(at), .integer(idleBefore)])
        return lifetime + idle
    }

    /// Deletes sessions that ended before `before`; returns how many.
    @discardableResult public func pruneEndedSessions(before: Int64) throws -> Int {
        try run("DELETE FROM session WHERE ended_at IS NOT NULL AND ended_at < ?", [.integer(before)])
    }

    /// Records that a session was used at `at` (its idle lifetime restarts).
    public func touchSession(_ sessionID: String, at: Int64) throws {
        try run("UPDATE session SET last_seen_at = ? WHERE session_id = ? AND ended_at IS NULL", [.integer(at), .text(sessionID)])
    }
}

/// The two sweeps of expired sessions, apart so that each keeps its partial index on SQLite.
enum ExpiredSessions {
    static let pastLifetime = "UPDATE session SET ended_at = ?, end_reason = 'lifetime' WHERE ended_at IS NULL AND created_at < ?"
    static let idle = "UPDATE session SET ended_at = ?, end_reason = 'idle' WHERE ended_at IS NULL AND last_seen_at < ?"
}
