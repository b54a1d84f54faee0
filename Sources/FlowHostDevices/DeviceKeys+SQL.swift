import FlowHostPOSIX
import FlowHostStore

/// The query of `deviceKey`, to prefetch.
extension StoreQuery {
    static let deviceKeySQL = """
        SELECT user_id, device_id, key_id, public_key, custody, created_at, revoked_at, algorithm,
            credential_id, sign_count, backup_eligible, backup_state, aaguid
        FROM device_key WHERE user_id = ? AND device_id = ?
        """

    public static func deviceKey(userID: String, deviceID: String) -> StoreQuery { StoreQuery(deviceKeySQL, [.text(userID), .text(deviceID)]) }
}

/// The SQL of device keys, challenges and proofs.
extension StoreReader {
    public func deviceKey(userID: String, deviceID: String) throws -> DeviceKeyRecord? {
        try query(.deviceKey(userID: userID, deviceID: deviceID)) { row in
            DeviceKeyRecord(
                userID: row.string(0), deviceID: row.string(1), keyID: row.string(2), publicKey: row.string(3), custody: row.string(4),
                createdAt: row.int64(5), revokedAt: row.optionalInt64(6), algorithm: row.string(7),
                webauthn: row.isNull(8)
                    ? nil
                    : HexBytes.decode(row.string(8)).map { id in
                        WebAuthnCredential(
                            credentialID: id, signCount: UInt32(clamping: row.int64(9)), backupEligible: row.int64(10) != 0,
                            backedUp: row.int64(11) != 0, aaguid: HexBytes.decode(row.string(12)) ?? [])
                    })
        }.first
    }

    /// The users registered on a device (active registrations) whose key
    /// for it the host keeps and has not revoked, most recently logged in
    /// first, with those keys' ids: the registrations and their keys in one
    /// statement, so one round trip to a server. A login sets its
    /// registration's `last_access_at` in the transaction that opens its
    /// session (`SessionLedger.open`), so the device's rows alone give the
    /// order: nothing is read from the session history.
    public func hostHeldKeys(onDevice deviceID: String) throws -> [(userID: String, keyID: String)] {
        try query(
            """
            SELECT device.user_id, device_key.key_id FROM device
            JOIN device_key ON device_key.user_id = device.user_id AND device_key.device_id = device.device_id
            WHERE device.device_id = ? AND device.status = 'ACTIVE' AND device_key.custody = 'host' AND device_key.revoked_at IS NULL
            ORDER BY device.last_access_at DESC, device.user_id
            """,
            [.text(deviceID)]
        ) { ($0.string(0), $0.string(1)) }
    }

    /// Whether a credential id is registered to any device key not revoked
    /// (a credential is one device's, never two users' or two devices').
    public func webauthnCredentialInUse(_ credentialID: [UInt8]) throws -> Bool {
        try !query(
            "SELECT 1 FROM device_key WHERE credential_id = ? AND revoked_at IS NULL", [.text(Hex.encode(credentialID))]
        ) { _ in true }.isEmpty
    }
}

extension StoreWriter {
    public func save(_ key: DeviceKeyRecord) throws {
        let credential = key.webauthn
        try run(
            """
            INSERT INTO device_key (user_id, device_id, key_id, public_key, custody, created_at, revoked_at, algorithm,
                credential_id, sign_count, backup_eligible, backup_state, aaguid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(user_id, device_id) DO UPDATE SET key_id = excluded.key_id, public_key = excluded.public_key,
                custody = excluded.custody, created_at = excluded.created_at, revoked_at = excluded.revoked_at, algorithm = excluded.algorithm,
                credential_id = excluded.credential_id, sign_count = excluded.sign_count, backup_eligible = excluded.backup_eligible,
                backup_state = excluded.backup_state, aaguid = excluded.aaguid
            """,
            [
                .text(key.userID), .text(key.deviceID), .text(key.keyID), .text(key.publicKey), .text(key.custody), .integer(key.createdAt),
                .optional(key.revokedAt), .text(key.algorithm), .optional(credential.map { Hex.encode($0.credentialID) }),
                .integer(Int64(credential?.signCount ?? 0)), .integer(credential?.backupEligible == true ? 1 : 0),
                .integer(credential?.backedUp == true ? 1 : 0), .optional(credential.map { Hex.encode($0.aaguid) }),
            ])
    }

    /// A WebAuthn credential's counter and backup state after an assertion;
    /// false when the key changed or was revoked meanwhile.
    public func updateWebAuthnCredential(userID: String, deviceID: String, keyID: String, signCount: UInt32, backedUp: Bool) throws -> Bool {
        try run(
            """
            UPDATE device_key SET sign_count = ?, backup_state = ?
            WHERE user_id = ? AND device_id = ? AND key_id = ? AND revoked_at IS NULL
            """, [.integer(Int64(signCount)), .integer(backedUp ? 1 : 0), .text(userID), .text(deviceID), .text(keyID)]) == 1
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
