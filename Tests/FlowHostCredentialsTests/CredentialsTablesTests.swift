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
}
