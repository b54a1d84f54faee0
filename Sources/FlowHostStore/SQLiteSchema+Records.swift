/// Flow-owned records: durable state a flow keeps without a table of its
/// own, namespaced by the flow's name, versioned for compare-and-set.
extension SQLiteSchemaModule {
    static let records = SQLiteSchemaModule(name: "records", migrations: [
        (id: "v1-records", sql: """
            CREATE TABLE flow_record (
                namespace TEXT NOT NULL,
                collection TEXT NOT NULL,
                key TEXT NOT NULL,
                value TEXT NOT NULL,
                version INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (namespace, collection, key)
            ) WITHOUT ROWID;
            """),
    ])
}
