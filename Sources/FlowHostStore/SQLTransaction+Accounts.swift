/// The SQL of users, their passwords and devices.
extension SQLTransaction {
    func user(_ userID: String) throws -> UserRecord? {
        try db.query("SELECT \(Self.userColumns) FROM user WHERE user_id = ?", [.text(userID)], Self.user).first
    }

    func users() throws -> [UserRecord] {
        try db.query("SELECT \(Self.userColumns) FROM user ORDER BY user_id", [], Self.user)
    }

    func device(userID: String, deviceID: String) throws -> DeviceRecord? {
        try db.query(
            "SELECT \(Self.deviceColumns) FROM device WHERE user_id = ? AND device_id = ?", [.text(userID), .text(deviceID)],
            Self.device
        ).first
    }

    func devices(userID: String) throws -> [DeviceRecord] {
        try db.query(
            "SELECT \(Self.deviceColumns) FROM device WHERE user_id = ? ORDER BY created_at, device_id", [.text(userID)], Self.device)
    }

    func passwords(userID: String, limit: Int) throws -> [PasswordRecord] {
        try db.query(
            "SELECT user_id, hash, created_at FROM password WHERE user_id = ? ORDER BY id DESC LIMIT ?", [.text(userID), .int(limit)]
        ) { PasswordRecord(userID: $0.string(0), hash: $0.string(1), createdAt: $0.int64(2)) }
    }

    func usersRegistered(onDevice deviceID: String) throws -> [String] {
        try db.query(
            """
            SELECT d.user_id FROM device d
            LEFT JOIN (SELECT user_id, MAX(created_at) AS last FROM session WHERE device_id = ? GROUP BY user_id) s
              ON s.user_id = d.user_id
            WHERE d.device_id = ? AND d.status = 'ACTIVE'
            ORDER BY COALESCE(s.last, 0) DESC, d.user_id
            """, [.text(deviceID), .text(deviceID)]
        ) { $0.string(0) }
    }

    func insert(_ user: UserRecord) throws {
        if try self.user(user.userID) != nil { throw StoreError.userExists }
        try db.run(
            "INSERT INTO user (\(Self.userColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(user.userID), .text(user.status.rawValue), .optional(user.blockReason?.rawValue), .int(user.activationAttemptsLeft),
                .int(user.passwordAttemptsLeft), .bool(user.passwordExpired), .integer(user.createdAt), .optional(user.lastResendAt),
                .optional(user.resendWindowStart), .int(user.resendCount),
            ])
    }

    func update(_ user: UserRecord) throws {
        let changed = try db.run(
            """
            UPDATE user SET status = ?, block_reason = ?, activation_attempts_left = ?, password_attempts_left = ?,
                            password_expired = ?, last_resend_at = ?, resend_window_start = ?, resend_count = ?
            WHERE user_id = ?
            """,
            [
                .text(user.status.rawValue), .optional(user.blockReason?.rawValue), .int(user.activationAttemptsLeft),
                .int(user.passwordAttemptsLeft), .bool(user.passwordExpired), .optional(user.lastResendAt),
                .optional(user.resendWindowStart), .int(user.resendCount), .text(user.userID),
            ])
        if changed == 0 { throw StoreError.notFound }
    }

    func save(_ device: DeviceRecord) throws {
        try db.run(
            """
            INSERT INTO device (\(Self.deviceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(user_id, device_id) DO UPDATE SET
                name = excluded.name, status = excluded.status, lda_type = excluded.lda_type,
                last_access_at = excluded.last_access_at
            """,
            [
                .text(device.userID), .text(device.deviceID), .text(device.name), .text(device.status.rawValue), .optional(device.ldaType),
                .integer(device.createdAt), .integer(device.lastAccessAt),
            ])
    }

    func insert(_ password: PasswordRecord) throws {
        try db.run(
            "INSERT INTO password (user_id, hash, created_at) VALUES (?, ?, ?)",
            [.text(password.userID), .text(password.hash), .integer(password.createdAt)])
    }

    func prunePasswords(userID: String, keep: Int) throws {
        try db.run(
            """
            DELETE FROM password WHERE user_id = ? AND id NOT IN
                (SELECT id FROM password WHERE user_id = ? ORDER BY id DESC LIMIT ?)
            """, [.text(userID), .text(userID), .int(keep)])
    }
}
