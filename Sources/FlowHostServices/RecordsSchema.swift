import FlowHostStore

/// The records domain's table: durable state a flow keeps without a table
/// of its own, namespaced by the flow's name, versioned for compare-and-set.
enum RecordsSchema {
    static func register(in migrator: inout SchemaMigrator) {
        migrator.registerMigration(
            "records/v1-records",
            sqlite: """
                CREATE TABLE flow_record (
                    namespace TEXT NOT NULL,
                    collection TEXT NOT NULL,
                    key TEXT NOT NULL,
                    value TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (namespace, collection, key)
                ) WITHOUT ROWID;
                """,
            postgres: """
                CREATE TABLE flow_record (
                    namespace TEXT COLLATE "C" NOT NULL,
                    collection TEXT COLLATE "C" NOT NULL,
                    key TEXT COLLATE "C" NOT NULL,
                    value TEXT COLLATE "C" NOT NULL,
                    version BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (namespace, collection, key)
                );
                """)
    }
}
