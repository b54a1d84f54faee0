/// The SQL behind `StoreReader` and `StoreWriter`, on one open transaction.
struct SQLTransaction: StoreWriter {
    let db: any SQLDatabase

    static let userColumns =
        "user_id, status, block_reason, activation_attempts_left, password_attempts_left, password_expired, created_at, last_resend_at, resend_window_start, resend_count"
    static let codeColumns = "id, user_id, code_hash, verification_key, created_at, expires_at, used_at, superseded_at"
    static let sessionColumns = "session_id, user_id, device_id, workflow, created_at, last_seen_at, ended_at, end_reason"
    static let outboxColumns = "id, user_id, kind, sealed_body, created_at, delivered_at, attempts, last_error, failed_at"
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
            SELECT \(Self.codeColumns) FROM activation_code
            WHERE user_id = ? AND used_at IS NULL AND superseded_at IS NULL AND for_device IS NULL ORDER BY id DESC LIMIT 1
            """, [.text(userID)], Self.code
        ).first
    }

    func liveActivationCodes(userID: String, now: Int64, limit: Int) throws -> [ActivationCodeRecord] {
        try db.query(
            """
            SELECT \(Self.codeColumns) FROM activation_code
            WHERE user_id = ? AND expires_at > ? AND (used_at IS NULL OR grant_hash IS NOT NULL) AND for_device IS NULL
            ORDER BY id DESC LIMIT ?
            """, [.text(userID), .integer(now), .int(limit)], Self.code)
    }

    func deviceCode(userID: String, deviceID: String, now: Int64) throws -> ActivationCodeRecord? {
        try db.query(
            """
            SELECT \(Self.codeColumns) FROM activation_code
            WHERE user_id = ? AND for_device = ? AND used_at IS NULL AND superseded_at IS NULL AND expires_at > ? ORDER BY id DESC LIMIT 1
            """, [.text(userID), .text(deviceID), .integer(now)], Self.code
        ).first
    }

    func recordDeviceCodeMiss(id: Int64, limit: Int, at: Int64) throws -> Int {
        try db.run("UPDATE activation_code SET wrong_tries = wrong_tries + 1 WHERE id = ?", [.integer(id)])
        let tries = try db.query("SELECT wrong_tries FROM activation_code WHERE id = ?", [.integer(id)]) { $0.int(0) }.first ?? limit
        if tries >= limit { try db.run("UPDATE activation_code SET used_at = ? WHERE id = ? AND used_at IS NULL", [.integer(at), .integer(id)]) }
        return max(0, limit - tries)
    }

    func activationGrant(userID: String, grantHash: String, acceptedSince: Int64) throws -> Int64? {
        try db.query(
            """
            SELECT id FROM activation_code WHERE user_id = ? AND grant_hash = ? AND grant_spent_at IS NULL AND used_at >= ?
            """, [.text(userID), .text(grantHash), .integer(acceptedSince)]
        ) { $0.int64(0) }.first
    }

    func session(_ sessionID: String) throws -> SessionRecord? {
        try db.query("SELECT \(Self.sessionColumns) FROM session WHERE session_id = ?", [.text(sessionID)], Self.session).first
    }

    func openSessions(userID: String) throws -> [SessionRecord] {
        try db.query(
            "SELECT \(Self.sessionColumns) FROM session WHERE user_id = ? AND ended_at IS NULL ORDER BY created_at, session_id",
            [.text(userID)], Self.session)
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
        let map: (SQLRow) -> AuditEntry = {
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
        return try db.query("SELECT \(Self.outboxColumns) FROM outbox\(filter) ORDER BY id", [], Self.outboxMessage)
    }

    func auditCounts(userID: String?, limit: Int) throws -> [AuditCount] {
        let columns = "hour, user_id, action, outcome, count, last_at"
        let map: (SQLRow) -> AuditCount = {
            AuditCount(hour: $0.int64(0), userID: $0.string(1), action: $0.string(2), outcome: $0.string(3), count: $0.int64(4), lastAt: $0.int64(5))
        }
        if let userID {
            return try db.query(
                "SELECT \(columns) FROM audit_count WHERE user_id = ? ORDER BY hour DESC, action, outcome LIMIT ?",
                [.text(userID), .int(limit)], map)
        }
        return try db.query("SELECT \(columns) FROM audit_count ORDER BY hour DESC, user_id, action, outcome LIMIT ?", [.int(limit)], map)
    }

    // MARK: Writes

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

    func insert(_ code: ActivationCodeRecord) throws -> Int64 {
        try db.insert(
            """
            INSERT INTO activation_code (user_id, code_hash, verification_key, created_at, expires_at, used_at, for_device)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(code.userID), .text(code.codeHash), .text(code.verificationKey), .integer(code.createdAt), .integer(code.expiresAt),
                .optional(code.usedAt), .optional(code.forDevice),
            ])
    }

    func acceptActivationCode(id: Int64, at: Int64, grantHash: String) throws -> Bool {
        try db.run(
            "UPDATE activation_code SET used_at = ?, grant_hash = ? WHERE id = ? AND used_at IS NULL AND superseded_at IS NULL",
            [.integer(at), .text(grantHash), .integer(id)]) == 1
    }

    func spendActivationGrant(codeID: Int64, at: Int64) throws -> Bool {
        try db.run(
            "UPDATE activation_code SET grant_spent_at = ? WHERE id = ? AND grant_hash IS NOT NULL AND grant_spent_at IS NULL",
            [.integer(at), .integer(codeID)]) == 1
    }

    func retireActivationCodes(userID: String, at: Int64) throws {
        try db.run("UPDATE activation_code SET used_at = ? WHERE user_id = ? AND used_at IS NULL", [.integer(at), .text(userID)])
        try db.run(
            "UPDATE activation_code SET grant_hash = NULL WHERE user_id = ? AND grant_hash IS NOT NULL AND grant_spent_at IS NULL",
            [.text(userID)])
    }

    func supersedeActivationCodes(userID: String, at: Int64) throws {
        try db.run(
            "UPDATE activation_code SET superseded_at = ? WHERE user_id = ? AND used_at IS NULL AND superseded_at IS NULL",
            [.integer(at), .text(userID)])
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

    func pruneAuditCounts(before: Int64) throws -> Int {
        try db.run("DELETE FROM audit_count WHERE hour < ?", [.integer(before)])
    }

    func pruneEndedSessions(before: Int64) throws -> Int {
        try db.run("DELETE FROM session WHERE ended_at IS NOT NULL AND ended_at < ?", [.integer(before)])
    }

    func touchSession(_ sessionID: String, at: Int64) throws {
        try db.run("UPDATE session SET last_seen_at = ? WHERE session_id = ? AND ended_at IS NULL", [.integer(at), .text(sessionID)])
    }

    func append(_ entry: AuditEntry) throws -> Int64 {
        try db.insert(
            "INSERT INTO audit (at, user_id, device_id, action, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .integer(entry.at), .optional(entry.userID), .optional(entry.deviceID), .text(entry.action), .text(entry.outcome),
                .optional(entry.detail),
            ])
    }

    func enqueue(_ message: OutboxMessage) throws -> Int64 {
        try db.insert(
            "INSERT INTO outbox (user_id, kind, sealed_body, created_at, delivered_at) VALUES (?, ?, ?, ?, ?)",
            [.text(message.userID), .text(message.kind), .blob(message.sealedBody), .integer(message.createdAt), .optional(message.deliveredAt)])
    }

    func markDelivered(outboxID: Int64, at: Int64) throws {
        try db.run("UPDATE outbox SET delivered_at = ?, lease_until = NULL WHERE id = ?", [.integer(at), .integer(outboxID)])
    }

    func claimOutboxMessage(id: Int64, now: Int64, leaseUntil: Int64) throws -> OutboxMessage? {
        let taken = try db.run(
            """
            UPDATE outbox SET lease_until = ? WHERE id = ? AND delivered_at IS NULL AND failed_at IS NULL
              AND COALESCE(next_attempt_at, 0) <= ? AND COALESCE(lease_until, 0) <= ?
            """, [.integer(leaseUntil), .integer(id), .integer(now), .integer(now)])
        guard taken == 1 else { return nil }
        return try db.query("SELECT \(Self.outboxColumns) FROM outbox WHERE id = ?", [.integer(id)], Self.outboxMessage).first
    }

    func dueOutboxMessages(now: Int64, limit: Int) throws -> [Int64] {
        try db.query(
            """
            SELECT id FROM outbox WHERE delivered_at IS NULL AND failed_at IS NULL
              AND COALESCE(next_attempt_at, 0) <= ? AND COALESCE(lease_until, 0) <= ? ORDER BY id LIMIT ?
            """, [.integer(now), .integer(now), .int(limit)]
        ) { $0.int64(0) }
    }

    func recordDeliveryFailure(outboxID: Int64, at: Int64, reason: String, retryAt: Int64?) throws {
        try db.run(
            """
            UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, lease_until = NULL,
                              failed_at = CASE WHEN CAST(? AS BIGINT) IS NULL THEN CAST(? AS BIGINT) ELSE NULL END
            WHERE id = ?
            """, [.text(reason), .optional(retryAt), .optional(retryAt), .integer(at), .integer(outboxID)])
    }

    func count(action: String, outcome: String, userID: String?, at: Int64) throws {
        try db.run(
            """
            INSERT INTO audit_count (hour, user_id, action, outcome, count, last_at) VALUES (?, ?, ?, ?, 1, ?)
            ON CONFLICT(hour, user_id, action, outcome) DO UPDATE SET count = audit_count.count + 1, last_at = excluded.last_at
            """, [.integer(at - at % 3600), .text(userID ?? ""), .text(action), .text(outcome), .integer(at)])
    }

    // MARK: Row mapping

    private static func user(_ row: SQLRow) -> UserRecord {
        UserRecord(
            userID: row.string(0), status: UserStatus(rawValue: row.string(1)) ?? .pending,
            blockReason: row.optionalString(2).flatMap(BlockReason.init(rawValue:)), activationAttemptsLeft: row.int(3),
            passwordAttemptsLeft: row.int(4), passwordExpired: row.bool(5), createdAt: row.int64(6), lastResendAt: row.optionalInt64(7),
            resendWindowStart: row.optionalInt64(8), resendCount: row.int(9))
    }

    private static func code(_ row: SQLRow) -> ActivationCodeRecord {
        ActivationCodeRecord(
            id: row.int64(0), userID: row.string(1), codeHash: row.string(2), verificationKey: row.string(3), createdAt: row.int64(4),
            expiresAt: row.int64(5), usedAt: row.optionalInt64(6), supersededAt: row.optionalInt64(7))
    }

    private static func session(_ row: SQLRow) -> SessionRecord {
        SessionRecord(
            sessionID: row.string(0), userID: row.string(1), deviceID: row.string(2), workflow: row.string(3), createdAt: row.int64(4),
            lastSeenAt: row.int64(5), endedAt: row.optionalInt64(6), endReason: row.optionalString(7))
    }

    private static func outboxMessage(_ row: SQLRow) -> OutboxMessage {
        OutboxMessage(
            id: row.int64(0), userID: row.string(1), kind: row.string(2), sealedBody: row.blob(3), createdAt: row.int64(4),
            deliveredAt: row.optionalInt64(5), attempts: row.int(6), lastError: row.optionalString(7), failedAt: row.optionalInt64(8))
    }

    private static func device(_ row: SQLRow) -> DeviceRecord {
        DeviceRecord(
            userID: row.string(0), deviceID: row.string(1), name: row.string(2), status: DeviceStatus(rawValue: row.string(3)) ?? .blocked,
            ldaType: row.optionalInt(4), createdAt: row.int64(5), lastAccessAt: row.int64(6))
    }
}
