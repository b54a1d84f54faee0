/// The change feed: events appended in the transaction of the change they
/// describe, read by every host after its own cursor.
extension SQLiteSchemaModule {
    static let feed = SQLiteSchemaModule(name: "feed", migrations: [
        (id: "v1-feed", sql: """
            CREATE TABLE feed_event (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                topic TEXT NOT NULL,
                payload TEXT NOT NULL,
                at INTEGER NOT NULL
            );
            CREATE INDEX feed_event_by_topic ON feed_event(topic, sequence);
            """),
    ])
}
