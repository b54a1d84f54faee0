import FlowHostStore

/// The SQL of users and their registered devices.
extension UserRecord {
    static let columns =
        "user_id, status, block_reason, activation_attempts_left, password_attempts_left, password_expired, created_at, last_resend_at, resend_window_start, resend_count"

    init(row: SQLRow) {
        self.init(
            userID: row.string(0), status: UserStatus(rawValue: row.string(1)) ?? .pending,
            blockReason: row.optionalString(2).flatMap(BlockReason.init(rawValue:)), activationAttemptsLeft: row.int(3),
            passwordAttemptsLeft: row.int(4), passwordExpired: row.bool(5), createdAt: row.int64(6), lastResendAt: row.optionalInt64(7),
            resendWindowStart: row.optionalInt64(8), resendCount: row.int(9))
    }
}

extension DeviceRecord {
    static let columns = "user_id, device_id, name, status, lda_type, created_at, last_access_at"

    init(row: SQLRow) {
        self.init(
            userID: row.string(0), deviceID: row.string(1), name: row.string(2), status: DeviceStatus(rawValue: row.string(3)) ?? .blocked,
            ldaType: row.optionalInt(4), createdAt: row.int64(5), lastAccessAt: row.int64(6))
    }
}

/// The queries of `user` and `device`, to prefetch. Their text is made
/// once: a login names each query twice.
extension StoreQuery {
    static let userSQL = "SELECT \(UserRecord.columns) FROM user WHERE user_id = ?"
    static let deviceSQL = "SELECT \(DeviceRecord.columns) FROM device WHERE user_id = ? AND device_id = ?"

    public static func user(_ userID: String) -> StoreQuery { StoreQuery(userSQL, [.text(userID)]) }

    public static func device(userID: String, deviceID: String) -> StoreQuery { StoreQuery(deviceSQL, [.text(userID), .text(deviceID)]) }
}

extension StoreReader {
    public func user(_ userID: String) throws -> UserRecord? {
        try query(.user(userID), UserRecord.init(row:)).first
    }

    public func users() throws -> [UserRecord] {
        try query("SELECT \(UserRecord.columns) FROM user ORDER BY user_id", [], UserRecord.init(row:))
    }

    public func device(userID: String, deviceID: String) throws -> DeviceRecord? {
        try query(.device(userID: userID, deviceID: deviceID), DeviceRecord.init(row:)).first
    }

    public func devices(userID: String) throws -> [DeviceRecord] {
        try query(
            "SELECT \(DeviceRecord.columns) FROM device WHERE user_id = ? ORDER BY created_at, device_id", [.text(userID)], DeviceRecord.init(row:))
    }
}

extension StoreWriter {
    /// Adds a user: `StoreError.userExists` when the id is taken.
    public func insert(_ user: UserRecord) throws {
        if try self.user(user.userID) != nil { throw StoreError.userExists }
        try run(
            "INSERT INTO user (\(UserRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(user.userID), .text(user.status.rawValue), .optional(user.blockReason?.rawValue), .int(user.activationAttemptsLeft),
                .int(user.passwordAttemptsLeft), .bool(user.passwordExpired), .integer(user.createdAt), .optional(user.lastResendAt),
                .optional(user.resendWindowStart), .int(user.resendCount),
            ])
    }

    /// Replaces a user's state: `StoreError.notFound` when there is no such user.
    public func update(_ user: UserRecord) throws {
        let changed = try run(
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

    /// Registers a device, or updates its name, status, LDA and last access.
    /// Sets a registration's last access (a login); nothing when there is none.
    /// Deferred (`runDeferred`): nothing reads its answer.
    public func touchDevice(userID: String, deviceID: String, at: Int64) throws {
        try runDeferred("UPDATE device SET last_access_at = ? WHERE user_id = ? AND device_id = ?", [.integer(at), .text(userID), .text(deviceID)])
    }

    public func save(_ device: DeviceRecord) throws {
        try run(
            """
            INSERT INTO device (\(DeviceRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(user_id, device_id) DO UPDATE SET
                name = excluded.name, status = excluded.status, lda_type = excluded.lda_type,
                last_access_at = excluded.last_access_at
            """,
            [
                .text(device.userID), .text(device.deviceID), .text(device.name), .text(device.status.rawValue), .optional(device.ldaType),
                .integer(device.createdAt), .integer(device.lastAccessAt),
            ])
    }
}
