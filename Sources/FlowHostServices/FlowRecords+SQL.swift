import FlowHostStore

/// The SQL of flow records.
extension FlowRecord {
    static let columns = "collection, key, value, version, updated_at"

    init(row: SQLRow) {
        self.init(collection: row.string(0), key: row.string(1), value: row.string(2), version: row.int64(3), updatedAt: row.int64(4))
    }
}

extension StoreReader {
    func record(namespace: String, collection: String, key: String) throws -> FlowRecord? {
        try query(
            "SELECT \(FlowRecord.columns) FROM flow_record WHERE namespace = ? AND collection = ? AND key = ?",
            [.text(namespace), .text(collection), .text(key)], FlowRecord.init(row:)
        ).first
    }

    /// Keys in order, starting with `prefix`, at most `limit`.
    func records(namespace: String, collection: String, prefix: String, limit: Int) throws -> [FlowRecord] {
        // A range, not LIKE: prefixes may hold % and _.
        try query(
            """
            SELECT \(FlowRecord.columns) FROM flow_record
            WHERE namespace = ? AND collection = ? AND key >= ? AND substr(key, 1, CAST(? AS INTEGER)) = ? ORDER BY key LIMIT ?
            """,
            [.text(namespace), .text(collection), .text(prefix), .int(prefix.utf8.count), .text(prefix), .int(limit)], FlowRecord.init(row:))
    }
}

extension StoreWriter {
    /// Writes a record; version 1 for a new one, one more than before for
    /// an update. Returns the new version.
    @discardableResult func putRecord(namespace: String, collection: String, key: String, value: String, at: Int64) throws -> Int64 {
        try run(
            """
            INSERT INTO flow_record (namespace, collection, key, value, version, updated_at) VALUES (?, ?, ?, ?, 1, ?)
            ON CONFLICT(namespace, collection, key) DO UPDATE SET value = excluded.value, version = flow_record.version + 1,
                updated_at = excluded.updated_at
            """, [.text(namespace), .text(collection), .text(key), .text(value), .integer(at)])
        return try record(namespace: namespace, collection: collection, key: key)?.version ?? 1
    }

    /// True when a record was removed.
    @discardableResult func deleteRecord(namespace: String, collection: String, key: String) throws -> Bool {
        try run(
            "DELETE FROM flow_record WHERE namespace = ? AND collection = ? AND key = ?", [.text(namespace), .text(collection), .text(key)]) == 1
    }
}
