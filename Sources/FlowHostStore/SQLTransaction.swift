/// The SQL behind `StoreReader` and `StoreWriter`, on one open transaction.
struct SQLTransaction: StoreWriter {
    let db: any SQLDatabase

    static let userColumns =
        "user_id, status, block_reason, activation_attempts_left, password_attempts_left, password_expired, created_at, last_resend_at, resend_window_start, resend_count"
    static let codeColumns = "id, user_id, code_hash, verification_key, created_at, expires_at, used_at, superseded_at"
    static let sessionColumns = "session_id, user_id, device_id, workflow, created_at, last_seen_at, ended_at, end_reason"
    static let outboxColumns = "id, user_id, kind, sealed_body, created_at, delivered_at, attempts, last_error, failed_at"
    static let deviceColumns = "user_id, device_id, name, status, lda_type, created_at, last_access_at"

    // MARK: Row mapping

    static func user(_ row: SQLRow) -> UserRecord {
        UserRecord(
            userID: row.string(0), status: UserStatus(rawValue: row.string(1)) ?? .pending,
            blockReason: row.optionalString(2).flatMap(BlockReason.init(rawValue:)), activationAttemptsLeft: row.int(3),
            passwordAttemptsLeft: row.int(4), passwordExpired: row.bool(5), createdAt: row.int64(6), lastResendAt: row.optionalInt64(7),
            resendWindowStart: row.optionalInt64(8), resendCount: row.int(9))
    }

    static func code(_ row: SQLRow) -> ActivationCodeRecord {
        ActivationCodeRecord(
            id: row.int64(0), userID: row.string(1), codeHash: row.string(2), verificationKey: row.string(3), createdAt: row.int64(4),
            expiresAt: row.int64(5), usedAt: row.optionalInt64(6), supersededAt: row.optionalInt64(7))
    }

    static func session(_ row: SQLRow) -> SessionRecord {
        SessionRecord(
            sessionID: row.string(0), userID: row.string(1), deviceID: row.string(2), workflow: row.string(3), createdAt: row.int64(4),
            lastSeenAt: row.int64(5), endedAt: row.optionalInt64(6), endReason: row.optionalString(7))
    }

    static func outboxMessage(_ row: SQLRow) -> OutboxMessage {
        OutboxMessage(
            id: row.int64(0), userID: row.string(1), kind: row.string(2), sealedBody: row.blob(3), createdAt: row.int64(4),
            deliveredAt: row.optionalInt64(5), attempts: row.int(6), lastError: row.optionalString(7), failedAt: row.optionalInt64(8))
    }

    static func device(_ row: SQLRow) -> DeviceRecord {
        DeviceRecord(
            userID: row.string(0), deviceID: row.string(1), name: row.string(2), status: DeviceStatus(rawValue: row.string(3)) ?? .blocked,
            ldaType: row.optionalInt(4), createdAt: row.int64(5), lastAccessAt: row.int64(6))
    }
}
