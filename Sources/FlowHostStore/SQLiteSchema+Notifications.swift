/// The notifications module: messages to a user that one of their devices answers once.
extension SQLiteSchemaModule {
    static let notifications = SQLiteSchemaModule(name: "notifications", migrations: [
        (id: "v1-notifications", sql: """
            CREATE TABLE notification (
                uuid TEXT PRIMARY KEY NOT NULL,
                user_id TEXT NOT NULL,
                body TEXT NOT NULL,
                actions TEXT NOT NULL,
                ds_required INTEGER NOT NULL,
                kind TEXT NOT NULL,
                context TEXT,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                status TEXT NOT NULL,
                action_performed TEXT,
                updated_at INTEGER,
                answered_by_device TEXT,
                consumed_at INTEGER
            );
            -- Newest first: by time, then by the order they were made (rowid) within a second.
            CREATE INDEX notification_by_user ON notification(user_id, created_at);
            """),
    ])
}
