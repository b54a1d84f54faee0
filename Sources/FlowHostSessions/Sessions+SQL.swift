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

    /// Users with an active registration on the device, most recent login first.
    /// A login sets the registration's `last_access_at` in the transaction
    /// that opens its session (`SessionLedger.open`), so the device's rows
    /// alone give the order: nothing is read from the session history, and
    /// no index on it is kept up at every login for this.
    public func usersRegistered(onDevice deviceID: String) throws -> [String] {
        try query(
            "SELECT user_id FROM device WHERE device_id = ? AND status = 'ACTIVE' ORDER BY last_access_at DESC, user_id",
            [.text(deviceID)]
        ) { $0.string(0) }
    }
}

extension StoreWriter {
    public func insert(_ session: SessionRecord) throws {
        try run(
            """
            INSERT INTO session (session_id, user_id, device_id, workflow, created_at, last_seen_at, ended_at, end_reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(session.sessionID), .text(session.userID), .text(session.deviceID), .text(session.workflow),
                .integer(session.createdAt), .integer(session.lastSeenAt), .optional(session.endedAt), .optional(session.endReason),
            ])
    }

    /// Ends one session if it is open; false if it had ended already.
    @discardableResult public func endSession(_ sessionID: String, at: Int64, reason: String) throws -> Bool {
        try run(
            "UPDATE session SET ended_at = ?, end_reason = ? WHERE session_id = ? AND ended_at IS NULL",
            [.integer(at), .text(reason), .text(sessionID)]) == 1
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

    /// Ends every open session idle since before `idleBefore` or created
    /// before `createdBefore`; returns how many ended.
    @discardableResult public func endExpiredSessions(idleBefore: Int64, createdBefore: Int64, at: Int64) throws -> Int {
        let lifetime = try run(
            "UPDATE session SET ended_at = ?, end_reason = 'lifetime' WHERE ended_at IS NULL AND created_at < ?",
            [.integer(at), .integer(createdBefore)])
        let idle = try run(
            "UPDATE session SET ended_at = ?, end_reason = 'idle' WHERE ended_at IS NULL AND last_seen_at < ?",
            [.integer(at), .integer(idleBefore)])
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
