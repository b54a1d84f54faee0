import Foundation
import Testing
import TestSupport
@testable import FlowHostStore

@Suite struct SchemaMigratorTests {
    /// A domain split out of an older, shared migration: its baseline, a
    /// frozen step of the old history, and a migration of its own after both.
    static let split = SchemaMigrator(
        { $0.registerLegacyStep("old/v2", after: "old/v1", sqlite: "ALTER TABLE t ADD COLUMN b INTEGER;", postgres: "ALTER TABLE t ADD COLUMN b BIGINT;") },
        {
            $0.registerBaseline(
                "new/v1", sqlite: "CREATE TABLE t (a INTEGER, b INTEGER);", postgres: "CREATE TABLE t (a BIGINT, b BIGINT);",
                replacing: ["old/v1", "old/v2"])
        },
        { $0.registerMigration("new/v2", sqlite: "CREATE INDEX t_by_a ON t(a);", postgres: "CREATE INDEX t_by_a ON t(a);") })

    @Test func aNewStoreRunsTheBaselineAndNoneOfTheHistory() {
        let plan = Self.split.plan(applied: [], dialect: .sqlite)
        #expect(plan.map(\.name) == ["new/v1", "new/v2"])
        #expect(plan.map(\.sql) == ["CREATE TABLE t (a INTEGER, b INTEGER);", "CREATE INDEX t_by_a ON t(a);"])
    }

    @Test func anOlderStoreFinishesItsHistoryThenRecordsTheBaselineWithoutRunningIt() {
        let plan = Self.split.plan(applied: ["old/v1"], dialect: .postgres)
        #expect(plan.map(\.name) == ["old/v2", "new/v1", "new/v2"])
        #expect(plan.map(\.sql) == ["ALTER TABLE t ADD COLUMN b BIGINT;", nil, "CREATE INDEX t_by_a ON t(a);"])
        #expect(Self.split.plan(applied: ["old/v1", "old/v2", "new/v1", "new/v2"], dialect: .sqlite).isEmpty)
    }

    @Test func registeringAMigrationAgainIsANoOpAndIncludingKeepsTheOrder() {
        var migrator = SchemaMigrator()
        migrator.registerMigration("a/v1", sqlite: "A", postgres: "A")
        migrator.registerMigration("b/v1", sqlite: "B", postgres: "B")
        var other = SchemaMigrator()
        other.registerMigration("b/v1", sqlite: "B", postgres: "B")
        other.registerMigration("c/v1", sqlite: "C", postgres: "C")
        migrator.include(other)
        migrator.registerMigration("a/v1", sqlite: "A", postgres: "A")
        #expect(migrator.migrations.map(\.name) == ["a/v1", "b/v1", "c/v1"])
    }

    /// On a real file: each migration once, recorded by name, the change
    /// feed's before the domains'; opening again runs nothing.
    @Test func aStoreRecordsWhatItRanAndRunsItOnce() throws {
        let fixture = try ThrowAwayStore(Self.split)
        let path = fixture.path
        _ = try SQLiteStore(path: path, schema: Self.split)
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
        let names = try connection.query("SELECT name FROM schema_migration ORDER BY rowid", []) { $0.string(0) }
        #expect(names == ["feed/v1-feed", "feed/v2-commit-order", "feed/v3-by-time", "feed/v4-notice-rows", "feed/v5-shared-append-lock", "new/v1", "new/v2"])
        #expect(try connection.query("SELECT COUNT(*) FROM pragma_table_info('t')", []) { $0.int(0) } == [2])
    }
}
