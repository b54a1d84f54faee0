import FlowHostAccounts
import FlowHostAudit
import FlowHostStore

/// The sessions domain's table: every login, open or ended, by user.
public enum SessionsSchema {
    public static func register(in migrator: inout SchemaMigrator) {
        // A session names its user, and its ending is audited.
        AccountsSchema.register(in: &migrator)
        AuditSchema.register(in: &migrator)
        migrator.registerBaseline(
            "sessions/v1-sessions",
            sqlite: """
                CREATE TABLE session (
                    session_id TEXT PRIMARY KEY NOT NULL,
                    user_id TEXT NOT NULL REFERENCES user(user_id),
                    device_id TEXT NOT NULL,
                    workflow TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    ended_at INTEGER,
                    last_seen_at INTEGER,
                    end_reason TEXT
                );
                CREATE INDEX session_by_device ON session(device_id, created_at);
                -- Open sessions only: the lifetime sweep at each login reads these, never the history.
                CREATE INDEX session_open_by_user ON session(user_id) WHERE ended_at IS NULL;
                CREATE INDEX session_open_by_created ON session(created_at) WHERE ended_at IS NULL;
                CREATE INDEX session_open_by_seen ON session(last_seen_at) WHERE ended_at IS NULL;
                """,
            postgres: """
                CREATE TABLE session (
                    session_id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                    user_id TEXT COLLATE "C" NOT NULL REFERENCES "user"(user_id),
                    device_id TEXT COLLATE "C" NOT NULL,
                    workflow TEXT COLLATE "C" NOT NULL,
                    created_at BIGINT NOT NULL,
                    ended_at BIGINT,
                    last_seen_at BIGINT,
                    end_reason TEXT COLLATE "C"
                );
                CREATE INDEX session_by_device ON session(device_id, created_at);
                CREATE INDEX session_open_by_user ON session(user_id) WHERE ended_at IS NULL;
                CREATE INDEX session_open_by_created ON session(created_at) WHERE ended_at IS NULL;
                CREATE INDEX session_open_by_seen ON session(last_seen_at) WHERE ended_at IS NULL;
                """,
            replacing: SchemaMigrator.accountsBeforeTheSplit)
        // A device's last login per user is one lookup, not a read of the
        // device's whole history; the retention sweep reads only ended ones.
        migrator.registerMigration(
            "sessions/v2-history-indexes",
            sqlite: """
                DROP INDEX session_by_device;
                CREATE INDEX session_by_device_user ON session(device_id, user_id, created_at);
                CREATE INDEX session_ended ON session(ended_at) WHERE ended_at IS NOT NULL;
                """,
            postgres: """
                DROP INDEX session_by_device;
                CREATE INDEX session_by_device_user ON session(device_id, user_id, created_at);
                CREATE INDEX session_ended ON session(ended_at) WHERE ended_at IS NOT NULL;
                """)
        // A device's users are ordered by their registration's last access
        // (set with each session's opening): one index page fewer per login.
        migrator.registerMigration(
            "sessions/v3-users-by-last-access",
            sqlite: "DROP INDEX session_by_device_user;",
            postgres: "DROP INDEX session_by_device_user;")
    }
}
