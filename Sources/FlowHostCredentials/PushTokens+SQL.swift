import FlowHostStore

/// The SQL of push tokens.
extension StoreReader {
    /// The device registration's push token, if it has one.
    public func pushToken(userID: String, deviceID: String) throws -> String? {
        try query("SELECT token FROM push_token WHERE user_id = ? AND device_id = ?", [.text(userID), .text(deviceID)]) { $0.string(0) }.first
    }

    /// The user's active devices that have a push token, each with whether
    /// it has a live host: a session of the user on the device that is
    /// open, used since `seenSince` and begun since `createdSince` (one a
    /// crashed host left open counts as live until it would have expired).
    public func pushTargets(userID: String, seenSince: Int64, createdSince: Int64) throws -> [(deviceID: String, live: Bool)] {
        try query(
            """
            SELECT t.device_id, (\(Self.liveSessions)) FROM push_token t
              JOIN device d ON d.user_id = t.user_id AND d.device_id = t.device_id
            WHERE t.user_id = ? AND d.status = 'ACTIVE'
            ORDER BY t.device_id
            """, [.integer(seenSince), .integer(createdSince), .text(userID)]
        ) { ($0.string(0), $0.int64(1) > 0) }
    }

    /// The token to push to now: the device's, while it is active and has
    /// no live host (as in `pushTargets`); nil otherwise.
    public func pushTarget(userID: String, deviceID: String, seenSince: Int64, createdSince: Int64) throws -> String? {
        try query(
            """
            SELECT t.token FROM push_token t
              JOIN device d ON d.user_id = t.user_id AND d.device_id = t.device_id
            WHERE (\(Self.liveSessions)) = 0 AND t.user_id = ? AND t.device_id = ? AND d.status = 'ACTIVE'
            """, [.integer(seenSince), .integer(createdSince), .text(userID), .text(deviceID)]
        ) { $0.string(0) }.first
    }

    /// How many open sessions the token's user has on its device, used
    /// since the first parameter and begun since the second (a count: an
    /// integer on both stores, where EXISTS is a boolean on PostgreSQL).
    static var liveSessions: String {
        """
        SELECT COUNT(*) FROM session s WHERE s.user_id = t.user_id AND s.device_id = t.device_id AND s.ended_at IS NULL
          AND s.last_seen_at >= ? AND s.created_at >= ?
        """
    }
}

extension StoreWriter {
    /// Records the registration's token, replacing the one it had.
    public func setPushToken(userID: String, deviceID: String, token: String, at: Int64) throws {
        try run("DELETE FROM push_token WHERE user_id = ? AND device_id = ?", [.text(userID), .text(deviceID)])
        try run(
            "INSERT INTO push_token (user_id, device_id, token, updated_at) VALUES (?, ?, ?, ?)",
            [.text(userID), .text(deviceID), .text(token), .integer(at)])
    }

    /// Removes the registration's token; whether it had one.
    @discardableResult public func removePushToken(userID: String, deviceID: String) throws -> Bool {
        try run("DELETE FROM push_token WHERE user_id = ? AND device_id = ?", [.text(userID), .text(deviceID)]) == 1
    }
}
