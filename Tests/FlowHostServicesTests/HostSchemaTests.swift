import FlowHostServices
import FlowHostStore
import Foundation
import FlowHostPOSIX
import Testing
import TestSupport

/// The schema split by domain must make exactly the tables the old shared
/// migrations made: a store from before the split, brought up to date, and a
/// new store end with the same columns, keys, indexes and triggers.
@Suite struct HostSchemaTests {
    /// A store from the build before device keys: only `credentials/v1-accounts` applied.
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../EndToEnd/fixtures/store-before-device-keys.sqlite").standardized.path

    /// The test's own folder, removed with the suite's instance.
    let scratch: TemporaryFolder
    init() throws { scratch = try TemporaryFolder() }

    private func folder() throws -> String { scratch.path }

    /// Every table's columns, every index and trigger (SQL with its spacing
    /// evened out), and whether each table has its own rowid and AUTOINCREMENT.
    private func shape(_ store: SQLiteStore) throws -> [String] {
        try store.read { tx in
            let objects = try tx.query(
                "SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name", []
            ) { (type: $0.string(0), name: $0.string(1), table: $0.string(2), sql: $0.string(3)) }
            return try objects.flatMap { object -> [String] in
                let sql = object.sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                guard object.type == "table" else { return ["\(object.type) \(object.name) on \(object.table): \(sql)"] }
                let columns = try tx.query("SELECT name, type, \"notnull\", COALESCE(dflt_value, ''), pk FROM pragma_table_info(?)", [.text(object.name)]) {
                    "\($0.string(0)) \($0.string(1)) notnull=\($0.int(2)) default=\($0.string(3)) pk=\($0.int(4))"
                }
                let keys = try tx.query("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?)", [.text(object.name)]) {
                    "\($0.string(0)) references \($0.string(1))(\($0.string(2)))"
                }
                let kind = "rowid=\(!sql.contains("WITHOUT ROWID")) autoincrement=\(sql.contains("AUTOINCREMENT"))"
                return ["table \(object.name) \(kind)"] + (columns + keys).map { "  \(object.name).\($0)" }
            }
        }
    }

    private func migrations(_ store: SQLiteStore) throws -> Set<String> {
        Set(try store.read { try $0.query("SELECT name FROM schema_migration", []) { $0.string(0) } })
    }

    @Test func aStoreFromBeforeTheSplitEndsLikeANewOne() throws {
        let old = try folder() + "/old.sqlite"
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: old)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: old)
        let upgraded = try SQLiteStore(path: old, schema: HostSchema.migrator)
        let freshFixture = try ThrowAwayStore(HostSchema.migrator)
        let fresh = freshFixture.store
        let (before, after) = (try shape(upgraded), try shape(fresh))
        #expect(before.filter { !after.contains($0) } == [], "only in the upgraded store")
        #expect(after.filter { !before.contains($0) } == [], "only in the new store")
        #expect(before == after, "the same, in the same order")
        #expect(before.contains("  session.user_id references user(user_id)"))
        #expect(before.contains("table audit_count rowid=false autoincrement=false"))
        // The new store ran none of the old history; the old one has it and every baseline.
        #expect(try migrations(upgraded).subtracting(try migrations(fresh)) == Set(SchemaMigrator.accountsBeforeTheSplit))
        #expect(try migrations(fresh).isSubset(of: try migrations(upgraded)))
        // Its rows came along.
        #expect(try upgraded.read { try $0.query("SELECT COUNT(*) FROM user", []) { $0.int(0) } }.first ?? 0 > 0)
    }
}
