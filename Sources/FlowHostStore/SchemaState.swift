#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How far a store's schema is from what this binary expects, read without
/// changing anything: a health check must not migrate (a host does that as
/// it opens the store), and must not create a store that is missing.
public struct SchemaState: Sendable, Equatable {
    /// This binary's migrations the store has not applied, in order.
    public let pending: [String]
    /// Migrations the store records that this binary does not know: a newer
    /// binary migrated it.
    public let unknown: [String]

    public var isCurrent: Bool { pending.isEmpty && unknown.isEmpty }

    init(applied: Set<String>, schema: SchemaMigrator, dialect: SQLDialect) {
        let all = SchemaMigrator.withStoreTables(schema)
        pending = all.plan(applied: applied, dialect: dialect).map(\.name)
        var known = Set(all.migrations.map(\.name))
        for migration in all.migrations {
            if case .baseline(let legacy) = migration.rule { known.formUnion(legacy) }
        }
        unknown = applied.subtracting(known).sorted()
    }

    /// A SQLite store's state, opened read-only. A missing file, or one
    /// others can reach, is an error (the host would refuse the latter too).
    public static func sqlite(path: String, schema: SchemaMigrator) throws -> SchemaState {
        guard access(path, F_OK) == 0 else { throw StoreError("no store at \(path)") }
        try PrivateFile.check([path, path + "-wal", path + "-shm"])
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 2000, readOnly: true)
        let hasTable = try connection.query("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migration'", []) {
            $0.int64(0)
        }.first ?? 0
        let applied = hasTable == 0 ? [] : try connection.query("SELECT name FROM schema_migration", []) { $0.string(0) }
        return SchemaState(applied: Set(applied), schema: schema, dialect: .sqlite)
    }

    /// A PostgreSQL store's state, through one short connection.
    public static func postgres(url: String, schema: SchemaMigrator) throws -> SchemaState {
        let connection = try PostgresStore.connectOnce(url: url)
        let hasTable = try connection.query("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'schema_migration'", []) {
            $0.int64(0)
        }.first ?? 0
        let applied = hasTable == 0 ? [] : try connection.query("SELECT name FROM schema_migration", []) { $0.string(0) }
        return SchemaState(applied: Set(applied), schema: schema, dialect: .postgres)
    }
}

extension PostgresStore {
    /// One connection to `url`, for a look (a password in it is refused).
    static func connectOnce(url: String) throws -> PostgresConnection {
        try refusePassword(url)
        do { return try PostgresConnection(conninfo: normalized(url)) } catch { throw StoreError("cannot connect: \(error.message)") }
    }

    /// Whether the server at `url` takes a connection and answers.
    public static func probe(url: String) throws {
        _ = try connectOnce(url: url).query("SELECT 1", []) { $0.int64(0) }
    }
}
