import CSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A SQLite call that failed: the result code and SQLite's own message.
public struct SQLiteError: Error, CustomStringConvertible, Equatable {
    public let code: Int32
    public let message: String
    public var description: String { "sqlite \(code): \(message)" }

    /// Another connection holds a lock this one needs (SQLITE_BUSY or
    /// SQLITE_LOCKED, with any extended code): worth running again.
    public var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
}

/// The one Swift owner of one `sqlite3 *`: closed in `deinit`. Every SQLite
/// call goes through `check`, which turns a result code into `SQLiteError`.
///
/// Not thread-safe by itself: `SQLiteStore` serialises all use behind its lock.
final class SQLiteConnection: SQLDatabase {
    private let handle: OpaquePointer
    /// Prepared statements by SQL text: each is compiled once per connection.
    private var statements: [StatementKey: SQLiteStatement] = [:]

    /// `readOnly`: for a look that must change nothing (`SchemaState`); the
    /// file must exist.
    init(path: String, busyTimeoutMilliseconds: Int32, readOnly: Bool = false) throws(SQLiteError) {
        Self.configureOnce()
        var opened: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard let opened else { throw SQLiteError(code: code, message: "cannot open \(path)") }
        handle = opened
        try check(code)
        try check(sqlite3_busy_timeout(handle, busyTimeoutMilliseconds))
    }

    /// SQLite's process-wide settings, before its first open: no memory
    /// statistics (FlowHost reads none; keeping them locks a mutex at every
    /// allocation), and no bulk page-cache block per connection (all of it
    /// is written at the first read, whatever is cached; docs/performance.md,
    /// "The store"). `swift_once` makes this run once, whichever thread opens first.
    private static let configured: Void = {
        _ = fh_sqlite3_config_no_memory_statistics()
        _ = fh_sqlite3_config_no_page_cache_bulk()
    }()
    private static func configureOnce() { _ = configured }

    /// What SQLite counts as allocated: always 0 with its statistics off.
    static var memoryCounted: Int64 { sqlite3_memory_used() }

    /// Keeps the WAL and its index (`-wal`, `-shm`) when the last
    /// connection closes, instead of deleting them and making them again at
    /// the next start: two file creations, two deletions and the index's
    /// eight page writes per start. The WAL is emptied at that close, as
    /// deleting it did (`deinit`).
    func keepWALFiles() throws(SQLiteError) {
        var keep: Int32 = 1
        try check(sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &keep))
    }

    deinit {
        statements.removeAll()  // finalised before the connection closes
        // The last connection to close checkpoints the WAL; with this limit
        // it also cuts it to nothing. Only here: while the store is open the
        // WAL keeps its size (SQLiteStore.connect), so appends overwrite
        // blocks already there and a durable commit's sync writes no inode.
        sqlite3_exec(handle, "PRAGMA journal_size_limit = 0", nil, nil, nil)
        sqlite3_close_v2(handle)
    }

    func check(_ code: Int32) throws(SQLiteError) {
        switch code {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE: return
        default: throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
        }
    }

    /// Runs SQL without results (several statements allowed).
    func execute(_ sql: String) throws(SQLiteError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    /// Runs one statement with bound values; returns the rows it read.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> Int {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(values)
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// Runs a query and maps each row.
    func query<T>(_ sql: String, _ values: [SQLValue] = [], _ map: (SQLRow) -> T) throws(SQLiteError) -> [T] {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var rows: [T] = []
        while try statement.step() { rows.append(map(SQLRow(sqlite: statement.handle))) }
        return rows
    }

    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    func insert(_ sql: String, _ values: [SQLValue], returning column: String) throws -> Int64 {
        try run(sql, values)
        return lastInsertedRowID
    }

    private func prepared(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statements[StatementKey(sql)] { return cached }
        var compiled: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &compiled, nil))
        guard let compiled else { throw SQLiteError(code: SQLITE_MISUSE, message: "empty statement: \(sql)") }
        let statement = SQLiteStatement(handle: compiled, connection: self)
        statements[StatementKey(sql)] = statement
        if QueryPlanLog.path != nil { QueryPlanLog.record(sql, plan: queryPlan(sql)) }
        return statement
    }

    /// SQLite's plan for `sql` (the detail column of EXPLAIN QUERY PLAN), for `QueryPlanLog`.
    private func queryPlan(_ sql: String) -> [String] {
        var compiled: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "EXPLAIN QUERY PLAN " + sql, -1, &compiled, nil) == SQLITE_OK, let compiled else { return [] }
        defer { sqlite3_finalize(compiled) }
        var lines: [String] = []
        while sqlite3_step(compiled) == SQLITE_ROW {
            if let detail = sqlite3_column_text(compiled, 3) { lines.append(String(cString: detail)) }
        }
        return lines
    }
}

/// The one owner of one prepared statement: finalised in `deinit`.
final class SQLiteStatement {
    let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ values: [SQLValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let number): try connection.check(sqlite3_bind_int64(handle, index, number))
            case .text(let text):
                // withCString: a valid pointer even for "" (SQLite reads `count` bytes).
                let code = text.withCString { fh_sqlite3_bind_text(handle, index, $0, Int32(text.utf8.count)) }
                try connection.check(code)
            case .blob(let bytes):
                try connection.check(bytes.withUnsafeBytes { fh_sqlite3_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count)) })
            case .null: try connection.check(sqlite3_bind_null(handle, index))
            }
        }
    }

    /// True while there is a row to read.
    func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        try connection.check(code)
        return code == SQLITE_ROW
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}

/// A statement's SQL text as the cache's key: hashed from its length and
/// three 8-byte samples rather than every byte (SipHash over each of a login
/// cycle's 43 statements, a few hundred bytes each, was 1% of its
/// instructions), and compared whole. The texts are the store's own, never
/// a client's, so a weaker hash gives nobody collisions to aim for.
struct StatementKey: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (left: StatementKey, right: StatementKey) -> Bool { left.text == right.text }

    func hash(into hasher: inout Hasher) {
        let sample = text.utf8.withContiguousStorageIfAvailable { bytes -> (Int, UInt64, UInt64, UInt64)? in
            guard bytes.count >= 8, let base = bytes.baseAddress else { return nil }
            let raw = UnsafeRawPointer(base)
            return (
                bytes.count, raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: (bytes.count - 8) / 2, as: UInt64.self),
                raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
            )
        }
        guard let (count, first, middle, last) = sample ?? nil else { return hasher.combine(text) }
        hasher.combine(count)
        hasher.combine(first)
        hasher.combine(middle)
        hasher.combine(last)
    }
}
