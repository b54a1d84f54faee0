import FlowHostAudit
import Foundation
import TestSupport
import Testing
@testable import FlowHostStore

@Suite struct AuditTablesTests {
    /// A store of the audit's tables alone, removed with the fixture.
    private static func auditStore() throws -> ThrowAwayStore { try ThrowAwayStore(SchemaMigrator(AuditSchema.register(in:))) }

    /// The database itself refuses to change or remove audit rows and to
    /// lower a count: tried with SQL on a second connection, past the Swift API.
    @Test func auditIsAppendOnlyInTheDatabase() throws {
        let fixture = try Self.auditStore()
        let (store, path) = (fixture.store, fixture.path)
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
        // A sweep that reaches a log row younger than 90 days is refused whole
        // (retention's own rules are `retentionGoesByIDAndNeverGivesAnIDTwice`).
        try store.write { tx in _ = try tx.append(AuditEntry(at: now, userID: "u", deviceID: nil, action: "user.create", outcome: "newest")) }
        #expect(throws: SQLiteError.self) { try store.write { try $0.pruneAudit(before: now) } }
        #expect(try store.read { try $0.auditEntries(userID: nil, limit: 10) }.map(\.outcome) == ["newest", "ok"])
    }

    /// Retention deletes the rows past it from the oldest id up to the first
    /// row that is not, through the primary key; a row a skewed clock dated
    /// earlier waits for a later sweep; the highest row always stays, so no
    /// id is given twice.
    @Test func retentionGoesByIDAndNeverGivesAnIDTwice() throws {
        let fixture = try Self.auditStore()
        let store = fixture.store
        let now = Int64(Date().timeIntervalSince1970)
        let cutoff = now - 91 * 86_400
        func append(_ at: Int64, _ outcome: String) throws -> Int64 {
            try store.write { try $0.append(AuditEntry(at: at, userID: "u", deviceID: nil, action: "user.create", outcome: outcome)) }
        }
        func outcomes() throws -> [String] { try store.read { try $0.auditEntries(userID: nil, limit: 20) }.map(\.outcome).reversed() }
        for (at, outcome) in [(Int64(1), "old1"), (2, "old2"), (3, "old3"), (now - 86_400, "recent1"), (4, "skewed"), (now, "recent2")] {
            _ = try append(at, outcome)
        }
        #expect(try store.write { try $0.pruneAudit(before: cutoff) } == 3)
        #expect(try outcomes() == ["recent1", "skewed", "recent2"])
        #expect(try store.write { try $0.pruneAudit(before: cutoff) } == 0, "the skewed row waits for recent1 to go")
        let plan = try store.read { try $0.query("EXPLAIN QUERY PLAN SELECT id FROM audit WHERE at >= 5 ORDER BY id LIMIT 1", []) { $0.string(3) } }
        #expect(plan.allSatisfy { !$0.contains("TEMP B-TREE") }, "read in id order, no sort: \(plan)")

        // Every row past retention: all go but the highest, and the next id is above it.
        let otherFixture = try Self.auditStore()
        let other = otherFixture.store
        var ids: [Int64] = []
        for at in [Int64(1), 2, 3] {
            ids.append(try other.write { try $0.append(AuditEntry(at: at, userID: nil, deviceID: nil, action: "a", outcome: "o\(at)")) })
        }
        #expect(try other.write { try $0.pruneAudit(before: cutoff) } == 2)
        #expect(try other.write { try $0.pruneAudit(before: cutoff) } == 0, "the highest row stays")
        let next = try other.write { try $0.append(AuditEntry(at: now, userID: nil, deviceID: nil, action: "a", outcome: "next")) }
        #expect(next == ids.max()! + 1)
    }

    /// A store from before `audit/v4-ids-by-rowid` keeps its rows and ids,
    /// and ids go on above the highest AUTOINCREMENT ever gave, even when
    /// retention had deleted that row; its index by time and sqlite_sequence
    /// row go, its append-only triggers stay.
    @Test func theMigrationKeepsEveryIDAndGivesNoneTwice() throws {
        let now = Int64(Date().timeIntervalSince1970)
        /// A store with the v3 table: AUTOINCREMENT, the index by time, rows 1 to 3, and `highestGiven` as the sequence.
        func storeBeforeV4(highestGiven: Int) throws -> (fixture: ThrowAwayStore, raw: SQLiteConnection) {
            let fixture = try Self.auditStore()
            let raw = try SQLiteConnection(path: fixture.path, busyTimeoutMilliseconds: 1000)
            try raw.execute(
                """
                BEGIN;
                DROP TABLE audit;
                CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, user_id TEXT, device_id TEXT,
                    action TEXT NOT NULL, outcome TEXT NOT NULL, detail TEXT);
                CREATE INDEX audit_by_time ON audit(at);
                INSERT INTO audit (id, at, action, outcome) VALUES (1, \(now - 3), 'a', 'one'), (2, \(now - 2), 'a', 'two'), (3, \(now - 1), 'a', 'three');
                UPDATE sqlite_sequence SET seq = \(highestGiven) WHERE name = 'audit';
                DELETE FROM schema_migration WHERE name = 'audit/v4-ids-by-rowid';
                COMMIT;
                """)
            #expect(try raw.query("SELECT seq FROM sqlite_sequence WHERE name = 'audit'") { $0.int(0) } == [highestGiven])
            return (fixture, raw)
        }
        // Id 9 was given, and retention has since deleted rows 4 to 9.
        let (fixture, raw) = try storeBeforeV4(highestGiven: 9)
        let store = try SQLiteStore(path: fixture.path, schema: SchemaMigrator(AuditSchema.register(in:)))
        let rows = try store.read { try $0.auditEntries(userID: nil, limit: 10) }
        #expect(rows.map(\.id) == [10, 3, 2, 1] && rows.map(\.outcome) == ["kept", "three", "two", "one"])
        #expect(rows.first?.action == "audit.ids" && rows.first?.detail == #"{"highestGiven":9}"#)
        let next = try store.write { try $0.append(AuditEntry(at: now, userID: nil, deviceID: nil, action: "a", outcome: "four")) }
        #expect(next == 11)
        #expect(try raw.query("SELECT COUNT(*) FROM sqlite_sequence WHERE name = 'audit'") { $0.int(0) } == [0])
        #expect(try raw.query("SELECT COUNT(*) FROM sqlite_master WHERE name = 'audit_by_time'") { $0.int(0) } == [0])
        #expect(throws: SQLiteError.self) { try raw.execute("DELETE FROM audit WHERE id = 1") }
        #expect(throws: SQLiteError.self) { try raw.execute("UPDATE audit SET outcome = 'forged'") }
        // Where the highest id given is still a row, nothing is added and ids go on from it.
        let (kept, _) = try storeBeforeV4(highestGiven: 3)
        let keptStore = try SQLiteStore(path: kept.path, schema: SchemaMigrator(AuditSchema.register(in:)))
        #expect(try keptStore.read { try $0.auditEntries(userID: nil, limit: 10) }.map(\.id) == [3, 2, 1])
        #expect(try keptStore.write { try $0.append(AuditEntry(at: now, userID: nil, deviceID: nil, action: "a", outcome: "four")) } == 4)
    }
}
