import FlowHostStore

/// The SQL of device keys, challenges and proofs.
extension StoreReader {
    public func deviceKey(userID: String, deviceID: String) throws -> DeviceKeyRecord? {
        try query(
            "SELECT user_id, device_id, key_id, public_key, custody, created_at, revoked_at, algorithm FROM device_key WHERE user_id = ? AND device_id = ?",
            [.text(userID), .text(deviceID)]
        ) {
            DeviceKeyRecord(
                userID: $0.string(0), deviceID: $0.string(1), keyID: $0.string(2), publicKey: $0.string(3), custody: $0.string(4),
                createdAt: $0.int64(5), revokedAt: $0.optionalInt64(6), algorithm: $0.string(7))
        }.first
    }
}

extension StoreWriter {
    public func save(_ key: DeviceKeyRecord) throws {
        try run(
            """
            INSERT INTO device_key (user_id, device_id, key_id, public_key, custody, created_at, revoked_at, algorithm) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(user_id, device_id) DO UPDATE SET key_id = excluded.key_id, public_key = excluded.public_key,
                custody = excluded.custody, created_at = excluded.created_at, revoked_at = excluded.revoked_at, algorithm = excluded.algorithm
            """,
            [
                .text(key.userID), .text(key.deviceID), .text(key.keyID), .text(key.publicKey), .text(key.custody), .integer(key.createdAt),
                .optional(key.revokedAt), .text(key.algorithm),
            ])
    }

    /// Marks the key revoked; false when there was none or it was revoked already.
    @discardableResult public func revokeDeviceKey(userID: String, deviceID: String, at: Int64) throws -> Bool {
        try run(
            "UPDATE device_key SET revoked_at = ? WHERE user_id = ? AND device_id = ? AND revoked_at IS NULL",
            [.integer(at), .text(userID), .text(deviceID)]) == 1
    }

    /// Drops challenges and proofs that expired before `before`: the rows
    /// hosts before 1.x kept in the store (challenges and proofs now live in
    /// the proving host's memory).
    @discardableResult public func pruneDeviceChallenges(before: Int64) throws -> Int {
        try run(
            "DELETE FROM device_challenge WHERE expires_at < ? AND (proof_expires_at IS NULL OR proof_expires_at < ?)",
            [.integer(before), .integer(before)])
    }
}
