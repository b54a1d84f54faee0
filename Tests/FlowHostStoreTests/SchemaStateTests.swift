import FlowHostPOSIX
import Foundation
import Testing
@testable import FlowHostStore

/// `SchemaState`: what `flowhost admin check` reports of a store, read
/// without migrating or making anything.
@Suite struct SchemaStateTests {
    let scratch: TemporaryFolder
    init() throws { scratch = try TemporaryFolder() }

    static func schema(_ names: [String]) -> SchemaMigrator {
        var migrator = SchemaMigrator()
        for name in names {
            let table = name.replacingOccurrences(of: "/", with: "_")
            migrator.registerMigration(name, sqlite: "CREATE TABLE \(table) (a INTEGER);", postgres: "CREATE TABLE \(table) (a BIGINT);")
        }
        return migrator
    }

    @Test func aStoreMigratedByThisSchemaIsCurrent() throws {
        let path = scratch.path + "/store.sqlite"
        _ = try SQLiteStore(path: path, schema: Self.schema(["t/v1", "t/v2"]))
        let state = try SchemaState.sqlite(path: path, schema: Self.schema(["t/v1", "t/v2"]))
        #expect(state.isCurrent && state.pending.isEmpty && state.unknown.isEmpty)
    }

    @Test func anOlderStoreHasPendingMigrationsAndIsNotMigratedByTheLook() throws {
        let path = scratch.path + "/store.sqlite"
        _ = try SQLiteStore(path: path, schema: Self.schema(["t/v1"]))
        let newer = Self.schema(["t/v1", "t/v2", "t/v3"])
        #expect(try SchemaState.sqlite(path: path, schema: newer).pending == ["t/v2", "t/v3"])
        #expect(try SchemaState.sqlite(path: path, schema: newer).pending == ["t/v2", "t/v3"], "looking twice finds the same: nothing was applied")
    }

    @Test func aStoreANewerBinaryMigratedHasUnknownMigrations() throws {
        let path = scratch.path + "/store.sqlite"
        _ = try SQLiteStore(path: path, schema: Self.schema(["t/v1", "t/v2"]))
        let state = try SchemaState.sqlite(path: path, schema: Self.schema(["t/v1"]))
        #expect(state.unknown == ["t/v2"] && state.pending.isEmpty && !state.isCurrent)
    }

    @Test func aStoreFromBeforeABaselineKnowsTheMigrationsItReplaced() throws {
        let path = scratch.path + "/store.sqlite"
        _ = try SQLiteStore(path: path, schema: Self.schema(["old/v1"]))
        var split = SchemaMigrator()
        split.registerBaseline("new/v1", sqlite: "CREATE TABLE old_v1 (a INTEGER);", postgres: "CREATE TABLE old_v1 (a BIGINT);", replacing: ["old/v1"])
        let state = try SchemaState.sqlite(path: path, schema: split)
        #expect(state.unknown.isEmpty, "old/v1 is the baseline's history, not a newer binary's")
        #expect(state.pending == ["new/v1"])
    }

    @Test func aMissingStoreIsAnErrorAndIsNotMade() throws {
        let path = scratch.path + "/absent.sqlite"
        #expect(throws: StoreError.self) { try SchemaState.sqlite(path: path, schema: Self.schema(["t/v1"])) }
        #expect(access(path, F_OK) != 0)
    }

    @Test func aStoreOthersCanReadIsRefused() throws {
        let path = scratch.path + "/store.sqlite"
        _ = try SQLiteStore(path: path, schema: Self.schema(["t/v1"]))
        chmod(path, 0o644)
        #expect(throws: StoreError.self) { try SchemaState.sqlite(path: path, schema: Self.schema(["t/v1"])) }
    }
}
