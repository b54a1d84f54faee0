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

    public func insert(_ challenge: DeviceChallengeRecord) throws {
        try run(
            "INSERT INTO device_challenge (nonce_hash, user_id, device_id, key_id, expires_at) VALUES (?, ?, ?, ?, ?)",
            [.text(challenge.nonceHash), .text(challenge.userID), .text(challenge.deviceID), .text(challenge.keyID), .integer(challenge.expiresAt)])
    }

    /// Uses a challenge once, recording the proof it became (nil when the
    /// answer was wrong): false when it is unknown, used, expired, or not this device's.
    public func useDeviceChallenge(nonceHash: String, userID: String, deviceID: String, now: Int64, proofHash: String?, proofExpiresAt: Int64?) throws -> Bool {
        try run(
            """
            UPDATE device_challenge SET used_at = ?, proof_hash = ?, proof_expires_at = ?
            WHERE nonce_hash = ? AND user_id = ? AND device_id = ? AND used_at IS NULL AND expires_at > ?
            """, [.integer(now), .optional(proofHash), .optional(proofExpiresAt), .text(nonceHash), .text(userID), .text(deviceID), .integer(now)]) == 1
    }

    /// Spends a proof once: false when it is unknown, spent, expired, or not this device's.
    public func spendDeviceProof(proofHash: String, userID: String, deviceID: String, now: Int64) throws -> Bool {
        try run(
            """
            UPDATE device_challenge SET proof_spent_at = ?
            WHERE proof_hash = ? AND user_id = ? AND device_id = ? AND proof_spent_at IS NULL AND proof_expires_at > ?
            """, [.integer(now), .text(proofHash), .text(userID), .text(deviceID), .integer(now)]) == 1
    }

    /// Drops challenges and proofs that expired before `before`.
    @discardableResult public func pruneDeviceChallenges(before: Int64) throws -> Int {
        try run(
            "DELETE FROM device_challenge WHERE expires_at < ? AND (proof_expires_at IS NULL OR proof_expires_at < ?)",
            [.integer(before), .integer(before)])
    }
}
