/// The SQL of sessions.
extension SQLTransaction {
    func session(_ sessionID: String) throws -> SessionRecord? {
        try db.query("SELECT \(Self.sessionColumns) FROM session WHERE session_id = ?", [.text(sessionID)], Self.session).first
    }

    func openSessions(userID: String) throws -> [SessionRecord] {
        try db.query(
            "SELECT \(Self.sessionColumns) FROM session WHERE user_id = ? AND ended_at IS NULL ORDER BY created_at, session_id",
            [.text(userID)], Self.session)
    }

    func insert(_ session: SessionRecord) throws {
        try db.run(
            """
            INSERT INTO session (session_id, user_id, device_id, workflow, created_at, last_seen_at, ended_at, end_reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(session.sessionID), .text(session.userID), .text(session.deviceID), .text(session.workflow),
                .integer(session.createdAt), .integer(session.lastSeenAt), .optional(session.endedAt), .optional(session.endReason),
            ])
    }

    func endSession(_ sessionID: String, at: Int64, reason: String) throws -> Bool {
        try db.run(
            "UPDATE session SET ended_at = ?, end_reason = ? WHERE session_id = ? AND ended_at IS NULL",
            [.integer(at), .text(reason), .text(sessionID)]) == 1
    }

    func endSessions(userID: String, deviceID: String?, at: Int64, reason: String) throws -> Int {
        if let deviceID {
            return try db.run(
                "UPDATE session SET ended_at = ?, end_reason = ? WHERE user_id = ? AND device_id = ? AND ended_at IS NULL",
                [.integer(at), .text(reason), .text(userID), .text(deviceID)])
        }
        return try db.run(
            "UPDATE session SET ended_at = ?, end_reason = ? WHERE user_id = ? AND ended_at IS NULL",
            [.integer(at), .text(reason), .text(userID)])
    }

    func endExpiredSessions(idleBefore: Int64, createdBefore: Int64, at: Int64) throws -> Int {
        let lifetime = try db.run(
            "UPDATE session SET ended_at = ?, end_reason = 'lifetime' WHERE ended_at IS NULL AND created_at < ?",
            [.integer(at), .integer(createdBefore)])
        let idle = try db.run(
            "UPDATE session SET ended_at = ?, end_reason = 'idle' WHERE ended_at IS NULL AND last_seen_at < ?",
            [.integer(at), .integer(idleBefore)])
        return lifetime + idle
    }

    func pruneEndedSessions(before: Int64) throws -> Int {
        try db.run("DELETE FROM session WHERE ended_at IS NOT NULL AND ended_at < ?", [.integer(before)])
    }

    func touchSession(_ sessionID: String, at: Int64) throws {
        try db.run("UPDATE session SET last_seen_at = ? WHERE session_id = ? AND ended_at IS NULL", [.integer(at), .text(sessionID)])
    }
}
