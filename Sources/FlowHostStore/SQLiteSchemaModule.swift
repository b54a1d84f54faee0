/// One module's part of the SQLite schema: its migrations, each applied
/// once, named `module/id` in the store's `schema_migration` table. A module
/// that grows adds migrations at the end of its own list; modules never
/// touch each other's tables.
struct SQLiteSchemaModule {
    let name: String
    let migrations: [(id: String, sql: String)]
}
