import CLibPQ
import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL call that failed: its SQLSTATE (empty when the connection
/// itself failed) and the server's or libpq's message.
public struct PostgresError: Error, CustomStringConvertible, Equatable {
    public let sqlState: String
    public let message: String
    /// The server's severity, not localised (`ERROR`, `FATAL`, `PANIC`);
    /// empty for an error libpq or this code made.
    public let severity: String
    public var description: String { sqlState.isEmpty ? "postgresql: \(message)" : "postgresql \(sqlState): \(message)" }

    public init(sqlState: String, message: String, severity: String = "") {
        self.sqlState = sqlState
        self.message = message
        self.severity = severity
    }

    /// The server refused a statement and went on (severity ERROR): the
    /// transaction it was in did not commit, whatever followed it in the same
    /// pipeline (the server skips the rest up to the pipeline's end). A FATAL
    /// or PANIC ends the server's session, and a PANIC in a COMMIT comes after
    /// its commit record may be on disk: neither says the COMMIT did not land.
    public var refusedAStatement: Bool { severity == "ERROR" }

    /// A conflict between concurrent transactions (serialization failure,
    /// deadlock): running the whole transaction again is safe and right.
    public var isConflict: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// The connection is gone (the server stopped, the network failed).
    public var isConnectionLost: Bool {
        sqlState.isEmpty || sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03" || severity == "FATAL"
            || severity == "PANIC"
    }

    /// The store's code used in a way it forbids (a statement after the
    /// transaction's COMMIT): the request fails, the connection stays, as
    /// for any refused statement (SQLSTATE 55000, not a lost connection).
    static func misuse(_ message: String) -> PostgresError { PostgresError(sqlState: "55000", message: message) }
}

/// The one Swift owner of one `PGconn *`: finished in `deinit`. Every call
/// goes through `check`, which turns a failed result into `PostgresError`.
///
/// Statements are written for SQLite (`?` placeholders) and translated once
/// per SQL text (`PostgresDialect`). Not thread-safe by itself: `PostgresStore`
/// serialises all use behind its lock.
final class PostgresConnection: SQLDatabase {
    let api: UnsafePointer<flowhost_pq_api>
    let handle: OpaquePointer
    private var translated: [String: String] = [:]

    init(conninfo: String) throws(PostgresError) {
        var problem: UnsafePointer<CChar>?
        guard let api = flowhost_pq_load(&problem) else {
            throw PostgresError(sqlState: "", message: problem.map { String(cString: $0) } ?? "cannot load libpq")
        }
        self.api = api
        handle = try Self.connect(api, conninfo)
    }

    deinit { api.pointee.finish(handle) }

    private static func connect(_ api: UnsafePointer<flowhost_pq_api>, _ conninfo: String) throws(PostgresError) -> OpaquePointer {
        guard let connection = api.pointee.connectdb(conninfo) else { throw PostgresError(sqlState: "", message: "out of memory") }
        guard api.pointee.status(connection) == CONNECTION_OK else {
            // libpq's message names the server and the reason, never the password.
            let message = cText(api.pointee.errorMessage(connection))
            api.pointee.finish(connection)
            throw PostgresError(sqlState: "", message: message)
        }
        return connection
    }

    var isConnected: Bool { api.pointee.status(handle) == CONNECTION_OK && !pipelineLeftOpen }

    /// The statements that open the current transaction, not yet sent: they
    /// go with its first statement (`beginLazily`).
    var deferredBegin: [String]?
    /// Writes whose results nobody reads (`runDeferred`), not yet sent: they
    /// go ahead of the next statement, or with the COMMIT.
    var deferredWrites: [PostgresStatement] = []
    /// The first failure of a statement of the current transaction
    /// (`check`): the server has aborted it, and would answer a COMMIT by
    /// rolling back, as a success. A body that caught the error and carried
    /// on (a deferred write's error comes back from the statement after it)
    /// must not see its transaction reported committed.
    var failureInTransaction: PostgresError?
    /// Answers `prefetch` sent ahead of the queries that ask for them; a
    /// write drops them (it may change what they would answer).
    var prefetched: [(query: StoreQuery, result: PostgresResult)] = []
    /// A pipeline whose results could not all be read: the connection's
    /// state is unknown, so it is not used again.
    var pipelineLeftOpen = false

    /// Opens a transaction with `statements` (its BEGIN and any `SET LOCAL`)
    /// sent in the same round trip as its first statement, not in one of
    /// their own: through a pooler each round trip is two hops.
    func beginLazily(_ statements: [String]) {
        deferredBegin = statements
        deferredWrites.removeAll()
        prefetched.removeAll()
        failureInTransaction = nil
        commitsWithNext = false
        committed = false
        commitSent = false
    }

    /// The next statement is the transaction's last: its COMMIT goes in the
    /// same round trip (`PostgresStore.writeOneStatement`).
    var commitsWithNext = false
    /// The COMMIT that went with a statement succeeded: nothing is left to
    /// end, and no statement may follow.
    var committed = false
    /// A COMMIT went with a statement, whatever became of it: when the
    /// connection is lost it may have landed. Only `beginLazily` clears it.
    var commitSent = false

    /// Ends the transaction `beginLazily` opened; one that never sent a
    /// statement never reached the server and has nothing to end.
    func commit() throws(PostgresError) {
        prefetched.removeAll()
        if let failure = failureInTransaction {
            deferredWrites.removeAll()
            // As sure of the outcome as that failure was: a refused statement
            // aborted the transaction, a lost connection may not have.
            throw PostgresError(
                sqlState: "25P02", message: "a statement of the transaction failed; it was rolled back, not committed",
                severity: failure.refusedAStatement ? "ERROR" : "")
        }
        if committed {
            committed = false
            return
        }
        if !deferredWrites.isEmpty {
            // The deferred writes and the COMMIT, in one round trip (with
            // the BEGIN too, if they are all the transaction has).
            let result = executeParams(PostgresStatement("COMMIT", []))
            defer { if let result { api.pointee.clear(result) } }
            try check(result)
            return
        }
        guard deferredBegin == nil else { deferredBegin = nil; return }
        try execute("COMMIT")
    }

    func rollback() throws(PostgresError) {
        // Never sent: nothing on the server to undo.
        deferredWrites.removeAll()
        prefetched.removeAll()
        // Too late: the body failed after its one statement committed
        // (`PostgresStore.transaction` runs the commit handlers then).
        if committed { return }
        guard deferredBegin == nil else { deferredBegin = nil; return }
        try execute("ROLLBACK")
    }

    func runDeferred(_ sql: String, _ values: [SQLValue]) throws(PostgresError) {
        guard !committed else { throw PostgresError.misuse("a statement after the transaction's COMMIT") }
        prefetched.removeAll()
        deferredWrites.append(PostgresStatement(translate(sql), values))
    }

    /// Runs SQL without parameters (several statements allowed).
    func execute(_ sql: String) throws(PostgresError) {
        precondition(!committed, "a statement after the transaction's COMMIT (writeOneStatement runs one)")
        // Only `commit` and `rollback` run a simple query inside a
        // transaction, and each deals with the deferred writes first.
        guard deferredWrites.isEmpty else { throw PostgresError.misuse("a simple query with deferred writes unsent") }
        let ending = commitsWithNext ? ["COMMIT"] : []
        let text = ((deferredBegin ?? []) + [sql] + ending).joined(separator: "; ")
        deferredBegin = nil
        commitsWithNext = false
        if !ending.isEmpty { commitSent = true }
        let result = api.pointee.exec(handle, text)
        defer { api.pointee.clear(result) }
        try check(result)
        committed = !ending.isEmpty
    }

    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws(PostgresError) -> Int {
        prefetched.removeAll()
        let result = try PostgresResult(executing: translate(sql), values, on: self)
        return result.changedRows
    }

    func query<T>(_ sql: String, _ values: [SQLValue], _ map: (SQLRow) -> T) throws(PostgresError) -> [T] {
        let result: PostgresResult
        if let kept = takePrefetched(StoreQuery(sql, values)) { result = kept } else { result = try PostgresResult(executing: translate(sql), values, on: self) }
        return (0..<result.rowCount).map { map(SQLRow(postgres: result, row: $0)) }
    }

    func insert(_ sql: String, _ values: [SQLValue], returning column: String) throws(PostgresError) -> Int64 {
        prefetched.removeAll()
        let result = try PostgresResult(executing: translate(sql) + " RETURNING " + column, values, on: self)
        guard result.rowCount == 1 else { throw PostgresError(sqlState: "", message: "INSERT returned no row") }
        return Int64(result.string(0, 0)) ?? 0
    }

    func check(_ result: OpaquePointer?) throws(PostgresError) {
        guard let result else {
            let failure = PostgresError(sqlState: "", message: cText(api.pointee.errorMessage(handle)))
            failureInTransaction = failureInTransaction ?? failure
            throw failure
        }
        switch api.pointee.resultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default:
            let state = api.pointee.resultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message = api.pointee.resultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
                ?? cText(api.pointee.resultErrorMessage(result))
            let severity = api.pointee.resultErrorField(result, Int32(UInt8(ascii: "V"))).map { String(cString: $0) } ?? ""
            let failure = PostgresError(sqlState: state, message: message, severity: severity)
            failureInTransaction = failureInTransaction ?? failure
            throw failure
        }
    }

    func translate(_ sql: String) -> String {
        if let done = translated[sql] { return done }
        let done = PostgresDialect.translate(sql)
        translated[sql] = done
        return done
    }
}

/// The one owner of one `PGresult *`: cleared in `deinit`.
final class PostgresResult {
    private let api: UnsafePointer<flowhost_pq_api>
    private let result: OpaquePointer
    let rowCount: Int32

    /// Runs one statement with its values as text parameters, each typed
    /// (int8, text, bytea) so that PostgreSQL never has to guess.
    /// PQexecParams prepares the unnamed statement, which the next statement
    /// replaces: nothing named outlives the transaction, as a transaction
    /// pooler needs.
    init(executing sql: String, _ values: [SQLValue], on connection: PostgresConnection) throws(PostgresError) {
        api = connection.api
        // A programming error (a statement after the one marked last), but
        // one the request fails on, not the host.
        guard !connection.committed else { throw PostgresError.misuse("a statement after the transaction's COMMIT") }
        let made = connection.executeParams(PostgresStatement(sql, values))
        do { try connection.check(made) } catch {
            if let made { connection.api.pointee.clear(made) }
            throw error
        }
        result = made!
        rowCount = api.pointee.ntuples(result)
    }

    /// Takes over a result read elsewhere (`PostgresConnection.prefetch`).
    init(owning result: OpaquePointer, api: UnsafePointer<flowhost_pq_api>) {
        self.api = api
        self.result = result
        rowCount = api.pointee.ntuples(result)
    }

    deinit { api.pointee.clear(result) }

    var changedRows: Int { Int(cText(api.pointee.cmdTuples(result))) ?? 0 }

    func isNull(_ row: Int32, _ column: Int32) -> Bool { api.pointee.getisnull(result, row, column) != 0 }

    func string(_ row: Int32, _ column: Int32) -> String {
        guard let value = api.pointee.getvalue(result, row, column) else { return "" }
        let count = Int(api.pointee.getlength(result, row, column))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) { String(utf8: UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// A bytea column in PostgreSQL's hex output (`\x0a1b…`).
    func bytea(_ row: Int32, _ column: Int32) -> [UInt8] {
        let text = Array(string(row, column).utf8)
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x") else { return [] }
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
        return stride(from: 2, to: text.count - 1, by: 2).map { nibble(text[$0]) << 4 | nibble(text[$0 + 1]) }
    }
}

/// A statement and its values as libpq takes them: text parameters, each
/// typed (int8, text, bytea) so that PostgreSQL never has to guess.
struct PostgresStatement {
    let sql: String
    let types: [UInt32]
    let texts: [String?]

    init(_ sql: String, _ values: [SQLValue]) {
        self.sql = sql
        var types: [UInt32] = []
        var texts: [String?] = []
        for value in values {
            switch value {
            case .integer(let number): types.append(20); texts.append(String(number))
            case .text(let text): types.append(25); texts.append(text)
            case .blob(let bytes): types.append(17); texts.append("\\x" + bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined())
            case .null: types.append(0); texts.append(nil)
            }
        }
        self.types = types
        self.texts = texts
    }

    /// Calls `body` with the parameters as C strings, valid only inside it.
    func withParameters<T>(_ body: (Int32, [UInt32], UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        withUnsafeCStrings(texts, terminated: false) { copies in
            // libpq reads the same pointers as `const char *const *`.
            let pointers = copies.map { UnsafeRawPointer($0).assumingMemoryBound(to: UnsafePointer<CChar>?.self) }
            return body(Int32(texts.count), types, pointers)
        }
    }
}

/// A C string libpq returned (nil as ""), without its trailing newlines.
func cText(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
    pointer.map { String(cString: $0) }?.trimmingTrailingNewlines() ?? ""
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }

    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
