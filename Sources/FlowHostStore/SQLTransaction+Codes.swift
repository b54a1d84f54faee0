/// The SQL of activation codes, device codes and grants.
extension SQLTransaction {
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
}
