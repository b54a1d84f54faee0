import FlowHostStore

/// The SQL of passwords, activation codes, device codes and grants.
extension ActivationCodeRecord {
    static let columns = "id, user_id, code_hash, verification_key, created_at, expires_at, used_at, superseded_at, for_device, purpose"

    init(row: SQLRow) {
        self.init(
            id: row.int64(0), userID: row.string(1), codeHash: row.string(2), verificationKey: row.string(3), createdAt: row.int64(4),
            expiresAt: row.int64(5), usedAt: row.optionalInt64(6), supersededAt: row.optionalInt64(7), forDevice: row.optionalString(8),
            purpose: row.string(9))
    }
}

/// The queries of `passwords` and `latestActivationCode`, to prefetch.
/// Their text is made once: a login names each query twice.
extension StoreQuery {
    static let passwordsSQL = "SELECT user_id, hash, created_at FROM password WHERE user_id = ? ORDER BY id DESC LIMIT ?"
    static let latestActivationCodeSQL = """
        SELECT \(ActivationCodeRecord.columns) FROM activation_code
        WHERE user_id = ? AND used_at IS NULL AND superseded_at IS NULL AND for_device IS NULL ORDER BY id DESC LIMIT 1
        """

    public static func passwords(userID: String, limit: Int) -> StoreQuery {
        StoreQuery(passwordsSQL, [.text(userID), .int(limit)])
    }

    public static func latestActivationCode(userID: String) -> StoreQuery {
        StoreQuery(latestActivationCodeSQL, [.text(userID)])
    }
}

extension StoreReader {
    /// Newest first.
    public func passwords(userID: String, limit: Int) throws -> [PasswordRecord] {
        try query(.passwords(userID: userID, limit: limit)) { PasswordRecord(userID: $0.string(0), hash: $0.string(1), createdAt: $0.int64(2)) }
    }

    /// The newest code of the user that is neither used nor superseded, expired or not.
    public func latestActivationCode(userID: String) throws -> ActivationCodeRecord? {
        try query(.latestActivationCode(userID: userID), ActivationCodeRecord.init(row:)).first
    }

    /// Codes that have not expired at `now` and were not retired by the
    /// operator: the current one, superseded ones and accepted ones, newest
    /// first, at most `limit`.
    public func liveActivationCodes(userID: String, now: Int64, limit: Int) throws -> [ActivationCodeRecord] {
        try query(
            """
            SELECT \(ActivationCodeRecord.columns) FROM activation_code
            WHERE user_id = ? AND expires_at > ? AND (used_at IS NULL OR grant_hash IS NOT NULL) AND for_device IS NULL
            ORDER BY id DESC LIMIT ?
            """, [.text(userID), .integer(now), .int(limit)], ActivationCodeRecord.init(row:))
    }

    /// The newest live code issued for `deviceID` and `purpose` (a device code's action).
    public func deviceCode(userID: String, deviceID: String, purpose: String, now: Int64) throws -> ActivationCodeRecord? {
        try query(
            """
            SELECT \(ActivationCodeRecord.columns) FROM activation_code
            WHERE user_id = ? AND for_device = ? AND purpose = ? AND used_at IS NULL AND superseded_at IS NULL AND expires_at > ?
            ORDER BY id DESC LIMIT 1
            """, [.text(userID), .text(deviceID), .text(purpose), .integer(now)], ActivationCodeRecord.init(row:)
        ).first
    }

    /// The id of the accepted code for `purpose` whose grant hashes to
    /// `grantHash`, if that grant is unspent and the code was accepted at or
    /// after `acceptedSince`.
    public func activationGrant(userID: String, grantHash: String, purpose: String, acceptedSince: Int64) throws -> Int64? {
        try query(
            """
            SELECT id FROM activation_code
            WHERE user_id = ? AND grant_hash = ? AND purpose = ? AND grant_spent_at IS NULL AND used_at >= ?
            """, [.text(userID), .text(grantHash), .text(purpose), .integer(acceptedSince)]
        ) { $0.int64(0) }.first
    }
}

extension StoreWriter {
    public func insert(_ password: PasswordRecord) throws {
        try run(
            "INSERT INTO password (user_id, hash, created_at) VALUES (?, ?, ?)",
            [.text(password.userID), .text(password.hash), .integer(password.createdAt)])
    }

    /// Keeps the newest `keep` passwords of the user, deletes the rest.
    public func prunePasswords(userID: String, keep: Int) throws {
        try run(
            """
            DELETE FROM password WHERE user_id = ? AND id NOT IN
                (SELECT id FROM password WHERE user_id = ? ORDER BY id DESC LIMIT ?)
            """, [.text(userID), .text(userID), .int(keep)])
    }

    /// A wrong try at a device code: counted on the code; retired at `limit`. Returns the tries left.
    public func recordDeviceCodeMiss(id: Int64, limit: Int, at: Int64) throws -> Int {
        try run("UPDATE activation_code SET wrong_tries = wrong_tries + 1 WHERE id = ?", [.integer(id)])
        let tries = try query("SELECT wrong_tries FROM activation_code WHERE id = ?", [.integer(id)]) { $0.int(0) }.first ?? limit
        if tries >= limit { try run("UPDATE activation_code SET used_at = ? WHERE id = ? AND used_at IS NULL", [.integer(at), .integer(id)]) }
        return max(0, limit - tries)
    }

    @discardableResult public func insert(_ code: ActivationCodeRecord) throws -> Int64 {
        try insert(
            """
            INSERT INTO activation_code (user_id, code_hash, verification_key, created_at, expires_at, used_at, for_device, purpose)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(code.userID), .text(code.codeHash), .text(code.verificationKey), .integer(code.createdAt), .integer(code.expiresAt),
                .optional(code.usedAt), .optional(code.forDevice), .text(code.purpose),
            ])
    }

    /// Marks a current code used and records the hash of the grant that
    /// completes activation. False when it was used or superseded meanwhile.
    public func acceptActivationCode(id: Int64, at: Int64, grantHash: String) throws -> Bool {
        try run(
            "UPDATE activation_code SET used_at = ?, grant_hash = ? WHERE id = ? AND used_at IS NULL AND superseded_at IS NULL",
            [.integer(at), .text(grantHash), .integer(id)]) == 1
    }

    /// Spends a grant: false if it was spent or voided meanwhile.
    public func spendActivationGrant(codeID: Int64, at: Int64) throws -> Bool {
        try run(
            "UPDATE activation_code SET grant_spent_at = ? WHERE id = ? AND grant_hash IS NOT NULL AND grant_spent_at IS NULL",
            [.integer(at), .integer(codeID)]) == 1
    }

    /// The operator's re-issue: every unused code of the user stops working
    /// and every unspent grant is voided.
    public func retireActivationCodes(userID: String, at: Int64) throws {
        try run("UPDATE activation_code SET used_at = ? WHERE user_id = ? AND used_at IS NULL", [.integer(at), .text(userID)])
        try run(
            "UPDATE activation_code SET grant_hash = NULL WHERE user_id = ? AND grant_hash IS NOT NULL AND grant_spent_at IS NULL",
            [.text(userID)])
    }

    /// A client's resend: the current codes are superseded (a later try with
    /// one is told a newer code was sent, at no cost).
    public func supersedeActivationCodes(userID: String, at: Int64) throws {
        try run(
            "UPDATE activation_code SET superseded_at = ? WHERE user_id = ? AND used_at IS NULL AND superseded_at IS NULL",
            [.integer(at), .text(userID)])
    }
}
