/// Flow-owned records: a flow's durable state, kept under its own namespace.
public protocol RecordReader {
    func record(namespace: String, collection: String, key: String) throws -> FlowRecord?
    /// Keys in order, starting with `prefix`, at most `limit`.
    func records(namespace: String, collection: String, prefix: String, limit: Int) throws -> [FlowRecord]
}

public protocol RecordWriter: RecordReader {
    /// Writes a record; version 1 for a new one, one more than before for
    /// an update. Returns the new version.
    @discardableResult func putRecord(namespace: String, collection: String, key: String, value: String, at: Int64) throws -> Int64
    /// True when a record was removed.
    @discardableResult func deleteRecord(namespace: String, collection: String, key: String) throws -> Bool
}

public struct FlowRecord: Sendable, Equatable {
    public let collection: String
    public let key: String
    /// JSON text.
    public let value: String
    public let version: Int64
    public let updatedAt: Int64
}
