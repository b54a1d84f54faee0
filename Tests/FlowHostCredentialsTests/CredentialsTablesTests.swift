import FlowHostAccounts
import FlowHostCredentials
import FlowHostStore
import TestSupport
import Testing

@Suite struct CredentialsTablesTests {
    @Test func passwordHistoryIsPrunedToTheNewest() throws {
        let fixture = try ThrowAwayStore(SchemaMigrator(CredentialsSchema.register(in:)))
        let store = fixture.store
        try store.write { tx in
            try tx.insert(UserRecord(userID: "u", activationAttemptsLeft: 1, passwordAttemptsLeft: 1, createdAt: 0))
            for index in 0..<8 { try tx.insert(PasswordRecord(userID: "u", hash: "h\(index)", createdAt: Int64(index))) }
            try tx.prunePasswords(userID: "u", keep: 5)
        }
        #expect(try store.read { try $0.passwords(userID: "u", limit: 100) }.map(\.hash) == ["h7", "h6", "h5", "h4", "h3"])
    }

    /// A store made before codes had a purpose: its operator's codes are
    /// activation codes, and its device codes, whose purpose cannot be told,
    /// serve none (they are refused, never taken for a reset's).
    @Test func codesMadeBeforeThePurposeAreActivationsOrServeNone() throws {
        let full = SchemaMigrator(CredentialsSchema.register(in:))
        var before = SchemaMigrator()
        for migration in full.migrations where migration.name != "credentials/v5-code-purpose" {
            before.registerMigration(migration.name, sqlite: migration.sqlite, postgres: migration.postgres)
        }
        let fixture = try ThrowAwayStore(before)
        try fixture.store.write { tx in
            try tx.insert(UserRecord(userID: "u", activationAttemptsLeft: 1, passwordAttemptsLeft: 1, createdAt: 0))
            try tx.run(
                """
                INSERT INTO activation_code (user_id, code_hash, verification_key, created_at, expires_at, for_device)
                VALUES ('u', 'h1', 'k1', 0, 100, NULL), ('u', 'h2', 'k2', 0, 100, 'd1')
                """, [])
        }
        let upgraded = try SQLiteStore(path: fixture.path, schema: full)
        #expect(try upgraded.read { try $0.latestActivationCode(userID: "u") }?.purpose == ActivationCodeRecord.activation)
        for purpose in ["account.forgot-password", "account.recovery", "activation.device-code"] {
            #expect(try upgraded.read { try $0.deviceCode(userID: "u", deviceID: "d1", purpose: purpose, now: 1) } == nil)
        }
    }
}
