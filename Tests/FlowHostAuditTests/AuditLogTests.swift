import FlowHostAccounts
import FlowHostAudit
import FlowHostStore
import Foundation
import TestSupport
import Testing

@Suite struct AuditLogTests {
    @Test func aFlowsEventsAreCountedUnderShortNamesAndNeverNameAnUnknownUser() throws {
        let fixture = try ThrowAwayStore(SchemaMigrator(AuditSchema.register(in:)))
        let store = fixture.store
        try store.write { try $0.insert(UserRecord(userID: "known", activationAttemptsLeft: 3, passwordAttemptsLeft: 3, createdAt: 0)) }
        let audit = AuditLog(clock: { 7200 })
        for _ in 0..<3 { try audit.record(in: store, userID: "known", action: "login.lda", outcome: "failed") }
        try audit.record(in: store, userID: "S3cret-typed-as-id", action: "login.user", outcome: "unknown")
        try audit.record(in: store, userID: nil, action: String(repeating: "x", count: 500) + "\n<script>", outcome: "")
        let counts = try store.read { try $0.auditCounts(userID: nil, limit: 10) }
        #expect(counts.first { $0.userID == "known" }?.count == 3)
        #expect(counts.contains { $0.userID == "" && $0.action == "login.user" })
        #expect(!counts.contains { $0.userID.contains("S3cret") })
        let long = counts.first { $0.action.hasPrefix("xxx") }
        #expect(long?.action.count == 64 && long?.outcome == "other")
        #expect(try store.read { try $0.auditEntries(userID: nil, limit: 10) }.isEmpty, "counted, not one row each")
    }
}
