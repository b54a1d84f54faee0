extension SQLTransaction: RecordWriter {
    private static let recordColumns = "collection, key, value, version, updated_at"

    private static func flowRecord(_ row: SQLRow) -> FlowRecord {
        FlowRecord(collection: row.string(0), key: row.string(1), value: row.string(2), version: row.int64(3), updatedAt: row.int64(4))
    }

    func record(namespace: String, collection: String, key: String) throws -> FlowRecord? {
        try db.query(
            "SELECT \(Self.recordColumns) FROM flow_record WHERE namespace = ? AND collection = ? AND key = ?",
            [.text(namespace), .text(collection), .text(key)], Self.flowRecord
        ).first
    }

    func records(namespace: String, collection: String, prefix: String, limit: Int) throws -> [FlowRecord] {
        // A range, not LIKE: prefixes may hold % and _.
        try db.query(
            """
            SELECT \(Self.recordColumns) FROM flow_record
            WHERE namespace = ? AND collection = ? AND key >= ? AND substr(key, 1, CAST(? AS INTEGER)) = ? ORDER BY key LIMIT ?
            """,
            [.text(namespace), .text(collection), .text(prefix), .int(prefix.utf8.count), .text(prefix), .int(limit)], Self.flowRecord)
    }

    func putRecord(namespace: String, collection: String, key: String, value: String, at: Int64) throws -> Int64 {
        try db.run(
            """
            INSERT INTO flow_record (namespace, collection, key, value, version, updated_at) VALUES (?, ?, ?, ?, 1, ?)
            ON CONFLICT(namespace, collection, key) DO UPDATE SET value = excluded.value, version = flow_record.version + 1,
                updated_at = excluded.updated_at
            """, [.text(namespace), .text(collection), .text(key), .text(value), .integer(at)])
        return try record(namespace: namespace, collection: collection, key: key)?.version ?? 1
    }

    func deleteRecord(namespace: String, collection: String, key: String) throws -> Bool {
        try db.run(
            "DELETE FROM flow_record WHERE namespace = ? AND collection = ? AND key = ?", [.text(namespace), .text(collection), .text(key)]) == 1
    }
}
