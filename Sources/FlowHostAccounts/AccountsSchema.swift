import FlowHostStore

/// The accounts domain's tables: users, and the devices registered to them.
public enum AccountsSchema {
    public static func register(in migrator: inout SchemaMigrator) {
        migrator.registerBaseline(
            "accounts/v1-users-and-devices",
            sqlite: """
                CREATE TABLE user (
                    user_id TEXT PRIMARY KEY NOT NULL,
                    status TEXT NOT NULL,
                    block_reason TEXT,
                    activation_attempts_left INTEGER NOT NULL,
                    password_attempts_left INTEGER NOT NULL,
                    password_expired INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL,
                    last_resend_at INTEGER,
                    resend_window_start INTEGER,
                    resend_count INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE device (
                    user_id TEXT NOT NULL REFERENCES user(user_id),
                    device_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    status TEXT NOT NULL,
                    lda_type INTEGER,
                    created_at INTEGER NOT NULL,
                    last_access_at INTEGER NOT NULL,
                    PRIMARY KEY (user_id, device_id)
                );
                CREATE INDEX device_by_device ON device(device_id);
                """,
            postgres: """
                CREATE TABLE "user" (
                    user_id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                    status TEXT COLLATE "C" NOT NULL,
                    block_reason TEXT COLLATE "C",
                    activation_attempts_left BIGINT NOT NULL,
                    password_attempts_left BIGINT NOT NULL,
                    password_expired BIGINT NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL,
                    last_resend_at BIGINT,
                    resend_window_start BIGINT,
                    resend_count BIGINT NOT NULL DEFAULT 0
                );
                CREATE TABLE device (
                    user_id TEXT COLLATE "C" NOT NULL REFERENCES "user"(user_id),
                    device_id TEXT COLLATE "C" NOT NULL,
                    name TEXT COLLATE "C" NOT NULL,
                    status TEXT COLLATE "C" NOT NULL,
                    lda_type BIGINT,
                    created_at BIGINT NOT NULL,
                    last_access_at BIGINT NOT NULL,
                    PRIMARY KEY (user_id, device_id)
                );
                CREATE INDEX device_by_device ON device(device_id);
                """,
            replacing: SchemaMigrator.accountsBeforeTheSplit)
    }
}
