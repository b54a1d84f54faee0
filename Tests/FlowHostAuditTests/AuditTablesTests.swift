import FlowHostAudit
import Foundation
import Testing
@testable import FlowHostStore

@Suite struct AuditTablesTests {
    private func temporaryPath() -> String {
        NSTemporaryDirectory() + "flowhost-audit-\(UUID().uuidString)/store.sqlite"
    }

    /// The database itself refuses to change or remove audit rows and to
    /// lower a count: tried with SQL on a second connection, past the Swift API.
    @Test func auditIsAppendOnlyInTheDatabase() throws {
        let path = temporaryPath()
        let store = try SQLiteStore(path: path, schema: SchemaMigrator(AuditSchema.register(in:)))
        let now = Int64(Date().timeIntervalSince1970)
        try store.write { tx in
            try tx.append(AuditEntry(at: now - 86_400, userID: "u", deviceID: nil, action: "user.create", outcome: "ok"))
            try tx.count(action: "login.user", outcome: "unknown", userID: nil, at: 7200)
            try tx.count(action: "login.user", outcome: "unknown", userID: nil, at: 7201)
        }
        // A recent hour's count (an hour older than 90 days may be pruned: retention).
        let recentHour = (Int64(Date().timeIntervalSince1970) / 3600 - 24) * 3600
        try store.write { tx in try tx.count(action: "login.user", outcome: "unknown", userID: nil, at: recentHour) }
        let raw = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
        for statement in [
            "UPDATE audit SET outcome = 'forged'", "DELETE FROM audit", "DELETE FROM audit_count WHERE hour = \(recentHour)",
            "UPDATE audit_count SET count = 0", "UPDATE audit_count SET action = 'other'",
        ] {
            #expect(throws: SQLiteError.self, "\(statement)") { try raw.execute(statement) }
        }
        try raw.execute("UPDATE audit_count SET count = count + 1")  // counting up is what counts do
        #expect(try store.read { try $0.auditEntries(userID: nil, limit: 10) }.map(\.outcome) == ["ok"])
        #expect(try store.read { try $0.auditCounts(userID: nil, limit: 10) }.map(\.count) == [2, 3])
        // The 1970 hour is past any retention: the database lets it go, and only it.
        #expect(try store.write { try $0.pruneAuditCounts(before: recentHour - 91 * 86_400) } == 1)
        #expect(try store.read { try $0.auditCounts(userID: nil, limit: 10) }.map(\.count) == [2])
        // So is a log row past any retention (retention.auditDays), and only
        // it: a sweep that reaches a row younger than 90 days is refused whole.
        try store.write { tx in _ = try tx.append(AuditEntry(at: 1, userID: "u", deviceID: nil, action: "user.create", outcome: "ancient")) }
        #expect(throws: SQLiteError.self) { try store.write { try $0.pruneAudit(before: now) } }
        #expect(try store.write { try $0.pruneAudit(before: now - 91 * 86_400) } == 1)
        #expect(try store.read { try $0.auditEntries(userID: nil, limit: 10) }.map(\.outcome) == ["ok"])
    }
}
