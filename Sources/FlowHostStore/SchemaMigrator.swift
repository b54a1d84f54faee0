/// The schema a store is opened with, as the domains that own its tables
/// registered it: each migration once, in registration order, named
/// `domain/id` in the store's `schema_migration` table, written for both
/// SQLite and PostgreSQL (nothing is translated from one to the other).
/// A domain registers what its tables build on first (a session's user, for
/// example); registering a migration again is a no-op, so two domains may
/// both register a third. A domain that grows adds migrations at the end of
/// its own list and never touches another domain's tables.
///
/// Two kinds of migration exist only for stores made before the schema was
/// split by domain (at 1.1): a legacy step runs only on a store that has the
/// legacy migration it follows, and a baseline is recorded without running
/// on a store whose legacy migrations already made the same tables.
public struct SchemaMigrator: Sendable {
    public struct Migration: Sendable, Equatable {
        public let name: String
        public let sqlite: String
        public let postgres: String
        let rule: Rule

        public func sql(for dialect: SQLDialect) -> String {
            switch dialect {
            case .sqlite: sqlite
            case .postgres: postgres
            }
        }
    }

    enum Rule: Sendable, Equatable {
        case always
        /// Recorded without running when every one of these is applied.
        case baseline(replacing: [String])
        /// Runs only on a store that has this one applied; never recorded otherwise.
        case legacyStep(after: String)
    }

    public private(set) var migrations: [Migration] = []

    /// The migrations with which stores made before the split created the
    /// accounts', credentials', sessions', audit's and outbox's tables
    /// together; each of those domains' baselines replaces them.
    public static let accountsBeforeTheSplit = ["credentials/v1-accounts", "credentials/v2-state-checks", "credentials/v3-counter-retention"]

    public init() {}

    /// The migrations the given domains register, in this order:
    /// `SchemaMigrator(AccountsSchema.register(in:), AuditSchema.register(in:))`.
    public init(_ registrations: (inout SchemaMigrator) -> Void...) {
        for register in registrations { register(&self) }
    }

    /// A migration every store runs once.
    public mutating func registerMigration(_ name: String, sqlite: String, postgres: String) {
        add(Migration(name: name, sqlite: sqlite, postgres: postgres, rule: .always))
    }

    /// A domain's first migration, which makes tables an older store already
    /// has from `legacy` (all of them): such a store records it without running it.
    public mutating func registerBaseline(_ name: String, sqlite: String, postgres: String, replacing legacy: [String]) {
        add(Migration(name: name, sqlite: sqlite, postgres: postgres, rule: .baseline(replacing: legacy)))
    }

    /// A step of an older store's history, frozen: it runs only where
    /// `after` was applied, to bring such a store to what the baselines replace.
    public mutating func registerLegacyStep(_ name: String, after: String, sqlite: String, postgres: String) {
        add(Migration(name: name, sqlite: sqlite, postgres: postgres, rule: .legacyStep(after: after)))
    }

    /// Registers every migration of `other`, in its order, after these.
    public mutating func include(_ other: SchemaMigrator) {
        for migration in other.migrations { add(migration) }
    }

    /// `schema` after the tables every store keeps itself (the change feed).
    static func withStoreTables(_ schema: SchemaMigrator) -> SchemaMigrator {
        var all = SchemaMigrator()
        FeedSchema.register(in: &all)
        all.include(schema)
        return all
    }

    private mutating func add(_ migration: Migration) {
        if let registered = migrations.first(where: { $0.name == migration.name }) {
            precondition(registered == migration, "migration \(migration.name) registered twice with different SQL")
            return
        }
        migrations.append(migration)
    }

    /// What a store that has applied `applied` must do, in order: each
    /// migration to record, with its SQL to run first (nil: record only).
    public func plan(applied: Set<String>, dialect: SQLDialect) -> [(name: String, sql: String?)] {
        var applied = applied
        var steps: [(name: String, sql: String?)] = []
        for migration in migrations where !applied.contains(migration.name) {
            switch migration.rule {
            case .always:
                steps.append((migration.name, migration.sql(for: dialect)))
            case .baseline(let legacy):
                let made = legacy.allSatisfy(applied.contains)
                steps.append((migration.name, made ? nil : migration.sql(for: dialect)))
            case .legacyStep(let after):
                guard applied.contains(after) else { continue }
                steps.append((migration.name, migration.sql(for: dialect)))
            }
            applied.insert(migration.name)
        }
        return steps
    }
}

/// Which database a migration or a statement is written for.
public enum SQLDialect: Sendable {
    case sqlite
    case postgres
}
