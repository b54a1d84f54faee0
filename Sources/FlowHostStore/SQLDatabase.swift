import CSQLite
import FlowHostPOSIX

/// What a transaction (`SQLTransaction`) needs of a database connection:
/// one statement at a time with bound values, `?` placeholders, rows read by
/// column index. SQLite and PostgreSQL connections provide it, so the SQL of
/// every domain is written once for both.
protocol SQLDatabase: AnyObject {
    /// Runs one statement; returns the rows it changed.
    @discardableResult func run(_ sql: String, _ values: [SQLValue]) throws -> Int
    /// Runs a query and maps each row.
    func query<T>(_ sql: String, _ values: [SQLValue], _ map: (SQLRow) -> T) throws -> [T]
    /// Runs an INSERT; returns the new row's `column` (its generated key).
    func insert(_ sql: String, _ values: [SQLValue], returning column: String) throws -> Int64
    /// Runs a statement whose result nobody reads (`StoreWriter.runDeferred`).
    func runDeferred(_ sql: String, _ values: [SQLValue]) throws
    /// Sends queries ahead of the ones that ask for them (`StoreReader.prefetch`).
    func prefetch(_ queries: [StoreQuery]) throws
}

extension SQLDatabase {
    /// Nothing: each query runs when asked, with no round trip to save.
    func prefetch(_ queries: [StoreQuery]) throws {}

    /// At once: only a round trip to a server is worth saving.
    func runDeferred(_ sql: String, _ values: [SQLValue]) throws { try run(sql, values) }
    @discardableResult func run(_ sql: String) throws -> Int { try run(sql, []) }
    func insert(_ sql: String, _ values: [SQLValue]) throws -> Int64 { try insert(sql, values, returning: "id") }
}

/// A value bound to a statement parameter.
public enum SQLValue: Hashable, Sendable {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null

    public static func optional(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    public static func optional(_ value: Int64?) -> SQLValue { value.map { .integer($0) } ?? .null }
    public static func optional(_ value: Int?) -> SQLValue { value.map { .integer(Int64($0)) } ?? .null }
    public static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
    public static func int(_ value: Int) -> SQLValue { .integer(Int64(value)) }
}

/// One row of a result, read by column index, from either database. Valid
/// only inside the `query` closure it is given to.
public struct SQLRow {
    private enum Source {
        case sqlite(OpaquePointer)
        case postgres(PostgresResult, Int32)
    }
    private let source: Source

    init(sqlite statement: OpaquePointer) { source = .sqlite(statement) }
    init(postgres result: PostgresResult, row: Int32) { source = .postgres(result, row) }

    public func isNull(_ column: Int32) -> Bool {
        switch source {
        case .sqlite(let statement): return sqlite3_column_type(statement, column) == SQLITE_NULL
        case .postgres(let result, let row): return result.isNull(row, column)
        }
    }

    public func int64(_ column: Int32) -> Int64 {
        switch source {
        case .sqlite(let statement): return sqlite3_column_int64(statement, column)
        case .postgres(let result, let row): return Int64(result.string(row, column)) ?? 0
        }
    }

    public func int(_ column: Int32) -> Int { Int(int64(column)) }
    public func bool(_ column: Int32) -> Bool { int64(column) != 0 }
    public func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    public func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }

    public func string(_ column: Int32) -> String {
        switch source {
        case .sqlite(let statement):
            guard let text = sqlite3_column_text(statement, column) else { return "" }
            let count = Int(sqlite3_column_bytes(statement, column))
            return String(utf8: UnsafeBufferPointer(start: text, count: count))
        case .postgres(let result, let row): return result.string(row, column)
        }
    }

    public func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }

    public func blob(_ column: Int32) -> [UInt8] {
        switch source {
        case .sqlite(let statement):
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let bytes = sqlite3_column_blob(statement, column), count > 0 else { return [] }
            return [UInt8](UnsafeRawBufferPointer(start: bytes, count: count))
        case .postgres(let result, let row): return result.bytea(row, column)
        }
    }
}
