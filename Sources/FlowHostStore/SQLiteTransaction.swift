import Foundation
import GRDB

/// The SQL behind `StoreReader` and `StoreWriter`, on one open transaction.
struct SQLiteTransaction: StoreWriter {
    let db: Database

    // MARK: Reads

    func user(_ userID: String) throws -> UserRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM user WHERE user_id = ?", arguments: [userID]).map(Self.user)
    }

    func users() throws -> [UserRecord] {
        try Row.fetchAll(db, sql: "SELECT * FROM user ORDER BY user_id").map(Self.user)
    }

    func device(userID: String, deviceID: String) throws -> DeviceRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM device WHERE user_id = ? AND device_id = ?", arguments: [userID, deviceID])
            .map(Self.device)
    }

    func devices(userID: String) throws -> [DeviceRecord] {
        try Row.fetchAll(db, sql: "SELECT * FROM device WHERE user_id = ? ORDER BY created_at, device_id", arguments: [userID])
            .map(Self.device)
    }

    func passwords(userID: String, limit: Int) throws -> [PasswordRecord] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM password WHERE user_id = ? ORDER BY id DESC LIMIT ?", arguments: [userID, limit]
        ).map { PasswordRecord(userID: $0["user_id"], hash: $0["hash"], createdAt: $0["created_at"]) }
    }

    func latestActivationCode(userID: String) throws -> ActivationCodeRecord? {
        try Row.fetchOne(
            db, sql: "SELECT * FROM activation_code WHERE user_id = ? AND used_at IS NULL ORDER BY id DESC LIMIT 1",
            arguments: [userID]
        ).map {
            ActivationCodeRecord(
                id: $0["id"], userID: $0["user_id"], codeHash: $0["code_hash"], verificationKey: $0["verification_key"],
                createdAt: $0["created_at"], expiresAt: $0["expires_at"], usedAt: $0["used_at"])
        }
    }

    func session(_ sessionID: String) throws -> SessionRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM session WHERE session_id = ?", arguments: [sessionID]).map {
            SessionRecord(
                sessionID: $0["session_id"], userID: $0["user_id"], deviceID: $0["device_id"], workflow: $0["workflow"],
                createdAt: $0["created_at"], endedAt: $0["ended_at"])
        }
    }

    func usersRegistered(onDevice deviceID: String) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT d.user_id FROM device d
                LEFT JOIN (SELECT user_id, MAX(created_at) AS last FROM session WHERE device_id = ? GROUP BY user_id) s
                  ON s.user_id = d.user_id
                WHERE d.device_id = ? AND d.status = 'ACTIVE'
                ORDER BY COALESCE(s.last, 0) DESC, d.user_id
                """, arguments: [deviceID, deviceID])
    }

    func auditEntries(userID: String?, limit: Int) throws -> [AuditEntry] {
        let rows =
            if let userID {
                try Row.fetchAll(db, sql: "SELECT * FROM audit WHERE user_id = ? ORDER BY id DESC LIMIT ?", arguments: [userID, limit])
            } else {
                try Row.fetchAll(db, sql: "SELECT * FROM audit ORDER BY id DESC LIMIT ?", arguments: [limit])
            }
        return rows.map {
            AuditEntry(
                id: $0["id"], at: $0["at"], userID: $0["user_id"], deviceID: $0["device_id"], action: $0["action"],
                outcome: $0["outcome"], detail: $0["detail"])
        }
    }

    func outbox(includeDelivered: Bool) throws -> [OutboxMessage] {
        let sql = includeDelivered ? "SELECT * FROM outbox ORDER BY id" : "SELECT * FROM outbox WHERE delivered_at IS NULL ORDER BY id"
        return try Row.fetchAll(db, sql: sql).map {
            let body: Data = $0["sealed_body"]
            return OutboxMessage(
                id: $0["id"], userID: $0["user_id"], kind: $0["kind"], sealedBody: [UInt8](body), createdAt: $0["created_at"],
                deliveredAt: $0["delivered_at"])
        }
    }

    // MARK: Writes

    func insert(_ user: UserRecord) throws {
        if try self.user(user.userID) != nil { throw StoreError.userExists }
        try db.execute(
            sql: """
                INSERT INTO user (user_id, status, block_reason, activation_attempts_left, password_attempts_left,
                                  password_expired, created_at, last_resend_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                user.userID, user.status.rawValue, user.blockReason?.rawValue, user.activationAttemptsLeft,
                user.passwordAttemptsLeft, user.passwordExpired, user.createdAt, user.lastResendAt,
            ])
    }

    func update(_ user: UserRecord) throws {
        try db.execute(
            sql: """
                UPDATE user SET status = ?, block_reason = ?, activation_attempts_left = ?, password_attempts_left = ?,
                                password_expired = ?, last_resend_at = ? WHERE user_id = ?
                """,
            arguments: [
                user.status.rawValue, user.blockReason?.rawValue, user.activationAttemptsLeft, user.passwordAttemptsLeft,
                user.passwordExpired, user.lastResendAt, user.userID,
            ])
        if db.changesCount == 0 { throw StoreError.notFound }
    }

    func save(_ device: DeviceRecord) throws {
        try db.execute(
            sql: """
                INSERT INTO device (user_id, device_id, name, status, lda_type, created_at, last_access_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(user_id, device_id) DO UPDATE SET
                    name = excluded.name, status = excluded.status, lda_type = excluded.lda_type,
                    last_access_at = excluded.last_access_at
                """,
            arguments: [
                device.userID, device.deviceID, device.name, device.status.rawValue, device.ldaType, device.createdAt,
                device.lastAccessAt,
            ])
    }

    func insert(_ password: PasswordRecord) throws {
        try db.execute(
            sql: "INSERT INTO password (user_id, hash, created_at) VALUES (?, ?, ?)",
            arguments: [password.userID, password.hash, password.createdAt])
    }

    func prunePasswords(userID: String, keep: Int) throws {
        try db.execute(
            sql: """
                DELETE FROM password WHERE user_id = ? AND id NOT IN
                    (SELECT id FROM password WHERE user_id = ? ORDER BY id DESC LIMIT ?)
                """, arguments: [userID, userID, keep])
    }

    func insert(_ code: ActivationCodeRecord) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO activation_code (user_id, code_hash, verification_key, created_at, expires_at, used_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [code.userID, code.codeHash, code.verificationKey, code.createdAt, code.expiresAt, code.usedAt])
        return db.lastInsertedRowID
    }

    func markActivationCodeUsed(id: Int64, at: Int64) throws {
        try db.execute(sql: "UPDATE activation_code SET used_at = ? WHERE id = ? AND used_at IS NULL", arguments: [at, id])
        if db.changesCount == 0 { throw StoreError("activation code already used") }
    }

    func retireActivationCodes(userID: String, at: Int64) throws {
        try db.execute(sql: "UPDATE activation_code SET used_at = ? WHERE user_id = ? AND used_at IS NULL", arguments: [at, userID])
    }

    func insert(_ session: SessionRecord) throws {
        try db.execute(
            sql: "INSERT INTO session (session_id, user_id, device_id, workflow, created_at, ended_at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [session.sessionID, session.userID, session.deviceID, session.workflow, session.createdAt, session.endedAt])
    }

    func endSession(_ sessionID: String, at: Int64) throws {
        try db.execute(sql: "UPDATE session SET ended_at = ? WHERE session_id = ? AND ended_at IS NULL", arguments: [at, sessionID])
    }

    func endSessions(userID: String, deviceID: String, at: Int64) throws {
        try db.execute(
            sql: "UPDATE session SET ended_at = ? WHERE user_id = ? AND device_id = ? AND ended_at IS NULL",
            arguments: [at, userID, deviceID])
    }

    func append(_ entry: AuditEntry) throws -> Int64 {
        try db.execute(
            sql: "INSERT INTO audit (at, user_id, device_id, action, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [entry.at, entry.userID, entry.deviceID, entry.action, entry.outcome, entry.detail])
        return db.lastInsertedRowID
    }

    func enqueue(_ message: OutboxMessage) throws -> Int64 {
        try db.execute(
            sql: "INSERT INTO outbox (user_id, kind, sealed_body, created_at, delivered_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [message.userID, message.kind, Data(message.sealedBody), message.createdAt, message.deliveredAt])
        return db.lastInsertedRowID
    }

    func markDelivered(outboxID: Int64, at: Int64) throws {
        try db.execute(sql: "UPDATE outbox SET delivered_at = ? WHERE id = ?", arguments: [at, outboxID])
    }

    // MARK: Row mapping

    private static func user(_ row: Row) -> UserRecord {
        UserRecord(
            userID: row["user_id"], status: UserStatus(rawValue: row["status"]) ?? .pending,
            blockReason: (row["block_reason"] as String?).flatMap(BlockReason.init(rawValue:)),
            activationAttemptsLeft: row["activation_attempts_left"], passwordAttemptsLeft: row["password_attempts_left"],
            passwordExpired: row["password_expired"], createdAt: row["created_at"], lastResendAt: row["last_resend_at"])
    }

    private static func device(_ row: Row) -> DeviceRecord {
        DeviceRecord(
            userID: row["user_id"], deviceID: row["device_id"], name: row["name"],
            status: DeviceStatus(rawValue: row["status"]) ?? .blocked, ldaType: row["lda_type"], createdAt: row["created_at"],
            lastAccessAt: row["last_access_at"])
    }
}
