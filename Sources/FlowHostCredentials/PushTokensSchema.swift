import FlowHostAccounts
import FlowHostStore

/// The push tokens' table: one token per registered device (a user's
/// registration of a device), removed with the device's revocation.
public enum PushTokensSchema {
    public static func register(in migrator: inout SchemaMigrator) {
        // A token belongs to a device registration.
        AccountsSchema.register(in: &migrator)
        migrator.registerMigration(
            "push/v1-tokens",
            sqlite: """
                CREATE TABLE push_token (
                    user_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    token TEXT NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (user_id, device_id),
                    FOREIGN KEY (user_id, device_id) REFERENCES device(user_id, device_id)
                );
                """,
            postgres: """
                CREATE TABLE push_token (
                    user_id TEXT COLLATE "C" NOT NULL,
                    device_id TEXT COLLATE "C" NOT NULL,
                    token TEXT COLLATE "C" NOT NULL,
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (user_id, device_id),
                    FOREIGN KEY (user_id, device_id) REFERENCES device(user_id, device_id)
                );
                """)
    }
}
