/// The SQL behind `StoreReader` and `StoreWriter`, on one open transaction.
struct SQLiteTransaction: StoreWriter {
    let db: SQLiteConnection

    static let userColumns =
        "user_id, status, block_reason, activation_attempts_left, password_attempts_left, password_expired, created_at, last_resend_at"
    static let deviceColumns = "user_id, device_id, name, status, lda_type, created_at, last_access_at"

    // MARK: Reads

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

    func latestActivationCode(userID: String) throws -> ActivationCodeRecord? {
        try db.query(
            """
            SELECT id, user_id, code_hash, verification_key, created_at, expires_at, used_at FROM activation_code
            WHERE user_id = ? AND used_at IS NULL ORDER BY id DESC LIMIT 1
            """, [.text(userID)]
        ) {
            ActivationCodeRecord(
                id: $0.int64(0), userID: $0.string(1), codeHash: $0.string(2), verificationKey: $0.string(3),
                createdAt: $0.int64(4), expiresAt: $0.int64(5), usedAt: $0.optionalInt64(6))
        }.first
    }

    func session(_ sessionID: String) throws -> SessionRecord? {
        try db.query(
            "SELECT session_id, user_id, device_id, workflow, created_at, ended_at FROM session WHERE session_id = ?", [.text(sessionID)]
        ) {
            SessionRecord(
                sessionID: $0.string(0), userID: $0.string(1), deviceID: $0.string(2), workflow: $0.string(3),
                createdAt: $0.int64(4), endedAt: $0.optionalInt64(5))
        }.first
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

    func auditEntries(userID: String?, limit: Int) throws -> [AuditEntry] {
        let map: (SQLiteRow) -> AuditEntry = {
            AuditEntry(
                id: $0.int64(0), at: $0.int64(1), userID: $0.optionalString(2), deviceID: $0.optionalString(3), action: $0.string(4),
                outcome: $0.string(5), detail: $0.optionalString(6))
        }
        let columns = "id, at, user_id, device_id, action, outcome, detail"
        if let userID {
            return try db.query("SELECT \(columns) FROM audit WHERE user_id = ? ORDER BY id DESC LIMIT ?", [.text(userID), .int(limit)], map)
        }
        return try db.query("SELECT \(columns) FROM audit ORDER BY id DESC LIMIT ?", [.int(limit)], map)
    }

    func outbox(includeDelivered: Bool) throws -> [OutboxMessage] {
        let filter = includeDelivered ? "" : " WHERE delivered_at IS NULL"
        return try db.query("SELECT id, user_id, kind, sealed_body, created_at, delivered_at FROM outbox\(filter) ORDER BY id", []) {
            OutboxMessage(
                id: $0.int64(0), userID: $0.string(1), kind: $0.string(2), sealedBody: $0.blob(3), createdAt: $0.int64(4),
                deliveredAt: $0.optionalInt64(5))
        }
    }

    // MARK: Writes

    func insert(_ user: UserRecord) throws {
        if try self.user(user.userID) != nil { throw StoreError.userExists }
        try db.run(
            "INSERT INTO user (\(Self.userColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(user.userID), .text(user.status.rawValue), .optional(user.blockReason?.rawValue), .int(user.activationAttemptsLeft),
                .int(user.passwordAttemptsLeft), .bool(user.passwordExpired), .integer(user.createdAt), .optional(user.lastResendAt),
            ])
    }

    func update(_ user: UserRecord) throws {
        let changed = try db.run(
            """
            UPDATE user SET status = ?, block_reason = ?, activation_attempts_left = ?, password_attempts_left = ?,
                            password_expired = ?, last_resend_at = ? WHERE user_id = ?
            """,
            [
                .text(user.status.rawValue), .optional(user.blockReason?.rawValue), .int(user.activationAttemptsLeft),
                .int(user.passwordAttemptsLeft), .bool(user.passwordExpired), .optional(user.lastResendAt), .text(user.userID),
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

    func insert(_ code: ActivationCodeRecord) throws -> Int64 {
        try db.run(
            """
            INSERT INTO activation_code (user_id, code_hash, verification_key, created_at, expires_at, used_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .text(code.userID), .text(code.codeHash), .text(code.verificationKey), .integer(code.createdAt), .integer(code.expiresAt),
                .optional(code.usedAt),
            ])
        return db.lastInsertedRowID
    }

    func markActivationCodeUsed(id: Int64, at: Int64) throws {
        let changed = try db.run("UPDATE activation_code SET used_at = ? WHERE id = ? AND used_at IS NULL", [.integer(at), .integer(id)])
        if changed == 0 { throw StoreError("activation code already used") }
    }

    func retireActivationCodes(userID: String, at: Int64) throws {
        try db.run("UPDATE activation_code SET used_at = ? WHERE user_id = ? AND used_at IS NULL", [.integer(at), .text(userID)])
    }

    func insert(_ session: SessionRecord) throws {
        try db.run(
            "INSERT INTO session (session_id, user_id, device_id, workflow, created_at, ended_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(session.sessionID), .text(session.userID), .text(session.deviceID), .text(session.workflow),
                .integer(session.createdAt), .optional(session.endedAt),
            ])
    }

    func endSession(_ sessionID: String, at: Int64) throws {
        try db.run("UPDATE session SET ended_at = ? WHERE session_id = ? AND ended_at IS NULL", [.integer(at), .text(sessionID)])
    }

    func endSessions(userID: String, deviceID: String, at: Int64) throws {
        try db.run(
            "UPDATE session SET ended_at = ? WHERE user_id = ? AND device_id = ? AND ended_at IS NULL",
            [.integer(at), .text(userID), .text(deviceID)])
    }

    func append(_ entry: AuditEntry) throws -> Int64 {
        try db.run(
            "INSERT INTO audit (at, user_id, device_id, action, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .integer(entry.at), .optional(entry.userID), .optional(entry.deviceID), .text(entry.action), .text(entry.outcome),
                .optional(entry.detail),
            ])
        return db.lastInsertedRowID
    }

    func enqueue(_ message: OutboxMessage) throws -> Int64 {
        try db.run(
            "INSERT INTO outbox (user_id, kind, sealed_body, created_at, delivered_at) VALUES (?, ?, ?, ?, ?)",
            [.text(message.userID), .text(message.kind), .blob(message.sealedBody), .integer(message.createdAt), .optional(message.deliveredAt)])
        return db.lastInsertedRowID
    }

    func markDelivered(outboxID: Int64, at: Int64) throws {
        try db.run("UPDATE outbox SET delivered_at = ? WHERE id = ?", [.integer(at), .integer(outboxID)])
    }

    // MARK: Row mapping

    private static func user(_ row: SQLiteRow) -> UserRecord {
        UserRecord(
            userID: row.string(0), status: UserStatus(rawValue: row.string(1)) ?? .pending,
            blockReason: row.optionalString(2).flatMap(BlockReason.init(rawValue:)), activationAttemptsLeft: row.int(3),
            passwordAttemptsLeft: row.int(4), passwordExpired: row.bool(5), createdAt: row.int64(6), lastResendAt: row.optionalInt64(7))
    }

    private static func device(_ row: SQLiteRow) -> DeviceRecord {
        DeviceRecord(
            userID: row.string(0), deviceID: row.string(1), name: row.string(2), status: DeviceStatus(rawValue: row.string(3)) ?? .blocked,
            ldaType: row.optionalInt(4), createdAt: row.int64(5), lastAccessAt: row.int64(6))
    }
}
