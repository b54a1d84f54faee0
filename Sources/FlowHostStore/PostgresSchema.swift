/// What a PostgreSQL store needs before any domain's migration.
enum PostgresSchema {
    /// The advisory lock migrations take ("flowhost" in ASCII, truncated).
    static let migrationLock: Int64 = 0x666C6F77686F7374

    /// Made before any migration, idempotent.
    static let prelude = """
        CREATE TABLE IF NOT EXISTS schema_migration (name TEXT PRIMARY KEY NOT NULL, applied_at BIGINT NOT NULL);
        -- What SQLite's RAISE(ABORT, …) triggers do: refuse the change.
        CREATE OR REPLACE FUNCTION flowhost_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION '%', TG_ARGV[0]; END $$;
        """
}
