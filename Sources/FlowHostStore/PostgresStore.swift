import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// The store on PostgreSQL, for deployments whose hosts run on several
/// machines: the same protocols, the same SQL (`SQLTransaction`), the same
/// guarantees as `SQLiteStore`.
///
/// - Every write is a SERIALIZABLE transaction: attempt counters, single-use
///   codes and answers stay exact however many hosts write at once. A
///   serialization failure or deadlock runs the whole transaction again after
///   a short, growing, jittered pause; clients never see one.
/// - `Durability.full` commits with `synchronous_commit = on` whatever the
///   server's default; `relaxed` is `off`. Both are set inside each write
///   transaction (`SET LOCAL`).
/// - The connection keeps no state on the server between transactions (no
///   session setting, no named prepared statement, no session lock, no
///   LISTEN), so it works through a pooler in transaction mode (PgBouncer's
///   `pool_mode = transaction`), which may hand each transaction to a
///   different server connection.
/// - A lost connection is opened again on the next use, at most once per
///   back-off interval (doubling to 5 s); meanwhile the store answers
///   `StoreError.unreachable`, which flows turn into a clear status.
///
/// `@unchecked Sendable`: the connection and the back-off state are only
/// touched inside `read` and `write`, which hold `lock` for the whole transaction.
public final class PostgresStore: FlowStore, @unchecked Sendable {
    /// The URL without any password (passwords come from PGPASSFILE or a
    /// `passfile` parameter: a URL's password would show in `ps`).
    public let location: String
    private var connection: PostgresConnection?
    private let conninfo: String
    private let lock = Lock()
    private var backoff = ReconnectBackoff()

    static let conflictRetries = 40

    /// Connects and migrates. `url` is a `postgresql://` or `postgres://` URL
    /// (the scheme in any case).
    public init(url given: String, schema: SchemaMigrator) throws {
        try Self.refusePassword(given)
        let url = Self.normalized(given)
        conninfo = url
        location = url
        let opened: PostgresConnection
        do { opened = try Self.open(url) } catch { throw StoreError("cannot connect to the store: \(error.message)") }
        connection = opened
        self.schema = schema
        try Self.migrate(opened, SchemaMigrator.withStoreTables(schema))
    }

    private let schema: SchemaMigrator

    /// Another connection to the same database (already migrated).
    public func newConnection() throws -> any FlowStore { try PostgresStore(url: conninfo, schema: schema) }

    /// A `postgresql://` or `postgres://` URL; schemes are case-insensitive (RFC 3986 §3.1).
    public static func isURL(_ location: String) -> Bool {
        scheme(of: location).map { ["postgresql", "postgres"].contains($0) } ?? false
    }

    /// The scheme of anything shaped like a URL (`letters://…`), lower-cased;
    /// nil for a file path. Such a location is never taken as a file name.
    public static func scheme(of location: String) -> String? {
        guard let separator = location.firstByteRange(of: "://") else { return nil }
        let scheme = location[..<separator.lowerBound]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
            scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789+-.".unicodeScalars.contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    /// The URL with its scheme in lower case, as libpq expects it.
    static func normalized(_ url: String) -> String {
        guard let separator = url.firstByteRange(of: "://") else { return url }
        return url[..<separator.lowerBound].lowercased() + url[separator.lowerBound...]
    }

    /// A password in the URL would be visible in `ps` and in shell history.
    /// Both places libpq takes one from are checked after percent-decoding,
    /// as libpq decodes them: the user-info (`user:password@`) and a query
    /// parameter named `password` (spelled `%70assword`, say).
    static func refusePassword(_ url: String) throws {
        let refusal = StoreError("the store URL holds a password: put it in a password file (PGPASSFILE, or passfile=… in the URL)")
        let rest = url.drop { $0 != "/" }.dropFirst(2)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        if let at = authority.lastIndex(of: "@"), percentDecoded(authority[..<at]).contains(":") { throw refusal }
        guard let query = url.firstIndex(of: "?").map({ url[url.index(after: $0)...] }) else { return }
        for parameter in query.split(separator: "&") {
            let name = percentDecoded(parameter.prefix { $0 != "=" }).lowercased()
            if name == "password" { throw refusal }
        }
    }

    /// `%XX` escapes decoded (an invalid one is kept as it is).
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex), high < utf8.endIndex,
                let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
                let value = UInt8(String(utf8: [utf8[high], utf8[low]]), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(index, offsetBy: 3)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(utf8: bytes)
    }

    public func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", writes: false, relaxed: false, body)
    }

    /// A read in which each statement sees what committed before it
    /// (READ COMMITTED), not one snapshot: for a read that first waits on a
    /// lock and must then see what its holders wrote (`readFeed`).
    func readCommitted<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY", writes: false, relaxed: false, body)
    }

    public func write<T>(durability: Durability, _ body: (any StoreWriter) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", writes: true, relaxed: durability == .relaxed, body)
    }

    /// A write whose body runs one statement: the transaction's BEGIN, that
    /// statement and its COMMIT go to the server in one round trip, where
    /// `write` takes two (through a pooler each round trip is two hops). A
    /// conflict at the COMMIT runs it again, as `write` does; a second
    /// statement in the body is a programming error.
    func writeOneStatement<T>(durability: Durability, _ body: (any StoreWriter) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", writes: true, relaxed: durability == .relaxed, oneStatement: true, body)
    }

    private func transaction<T>(
        _ begin: String, writes: Bool, relaxed: Bool, oneStatement: Bool = false, _ body: (SQLTransaction) throws -> T
    ) throws -> T {
        try lock.withLock {
            var pause: UInt32 = 2_000
            for attempt in 0... {
                let db = try usableConnection()
                // A write's handlers; a read cannot change anything to undo.
                let handlers = writes ? TransactionHandlers() : nil
                var committing = false
                do {
                    // Sent with the first statement; the setting lives and dies with the transaction.
                    db.beginLazily(writes ? [begin, "SET LOCAL synchronous_commit = " + (relaxed ? "off" : "on")] : [begin])
                    db.commitsWithNext = oneStatement
                    let result = try body(SQLTransaction(db: db, handlers: handlers))
                    committing = true
                    try db.commit()
                    handlers?.committed()
                    return result
                } catch where db.committed {
                    // The body failed after its one statement committed:
                    // what that wrote stays, and so does what it took.
                    handlers?.committed()
                    throw error
                } catch let error as PostgresError {
                    if db.isConnected { try? db.rollback() }
                    if !Self.mayHaveCommitted(commitSent: committing || db.commitSent, failure: error) { handlers?.rolledBack() }
                    if error.isConflict && attempt < Self.conflictRetries {
                        usleep(pause + UInt32.random(in: 0..<pause))
                        pause = min(pause * 2, 200_000)
                        continue
                    }
                    if error.isConnectionLost || !db.isConnected {
                        // Whether a COMMIT in flight landed is unknown: never run the body again.
                        connection = nil
                        throw StoreError.unreachable
                    }
                    throw error
                } catch {
                    if db.isConnected { try? db.rollback() } else { connection = nil }
                    handlers?.rolledBack()
                    throw error
                }
            }
            fatalError("unreachable")
        }
    }

    /// Whether a transaction that failed with `failure` may still have
    /// committed, so that what it took (a spent proof, say) must stay taken.
    /// Once its COMMIT is sent, only the server's refusal of a statement
    /// (a conflict at the COMMIT, a deferred write's error) says it rolled
    /// back, even when the connection is not usable afterwards. A lost
    /// connection, a FATAL or PANIC, or an error made here (a body that went
    /// on after a failure) leaves it unknown, and a proof given back that was
    /// spent could be replayed.
    static func mayHaveCommitted(commitSent: Bool, failure: PostgresError) -> Bool {
        commitSent && !failure.refusedAStatement
    }

    /// The open connection, or a new one when the last was lost (at most one
    /// try per back-off interval).
    private func usableConnection() throws -> PostgresConnection {
        if let connection, connection.isConnected { return connection }
        connection = nil
        guard backoff.isDue else { throw StoreError.unreachable }
        do {
            let fresh = try Self.open(conninfo)
            connection = fresh
            backoff.succeeded()
            return fresh
        } catch {
            backoff.failed()
            throw StoreError.unreachable
        }
    }

    /// A connection with no session setting: through a transaction pooler a
    /// session `SET` would stay on whichever server connection ran it, and
    /// other transactions would run without it. Each write sets
    /// `synchronous_commit` itself.
    private static func open(_ conninfo: String) throws(PostgresError) -> PostgresConnection {
        try PostgresConnection(conninfo: conninfo)
    }

    // MARK: Schema

    /// The schema's migrations, each applied once, under a transaction-scoped
    /// advisory lock, so that hosts starting at once never race: the second
    /// waits, then finds nothing to do.
    static func migrate(_ connection: PostgresConnection, _ schema: SchemaMigrator) throws {
        // Most starts find every migration applied: one read, outside any
        // transaction, says so without the lock and the prelude's DDL, which
        // a thousand hosts starting together would otherwise queue on. A
        // change to the prelude's function therefore comes with a migration.
        if let applied = try? connection.query("SELECT name FROM schema_migration", [], { $0.string(0) }),
            schema.plan(applied: Set(applied), dialect: .postgres).isEmpty
        {
            return
        }
        do {
            try connection.execute("BEGIN; SET LOCAL synchronous_commit = on")
            // Transaction-scoped: released at COMMIT or ROLLBACK, on whichever
            // server connection a pooler gave this transaction.
            try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))")
            try connection.execute(PostgresSchema.prelude)
            let applied = Set(try connection.query("SELECT name FROM schema_migration", []) { $0.string(0) })
            for step in schema.plan(applied: applied, dialect: .postgres) {
                if let sql = step.sql, !sql.isEmpty { try connection.execute(sql) }
                try connection.run("INSERT INTO schema_migration (name, applied_at) VALUES (?, ?)", [.text(step.name), .integer(Int64(time(nil)))])
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw StoreError("cannot migrate the store: \(error)")
        }
    }
}

extension StoreError {
    /// The store's server cannot be reached now; nothing was written.
    public static let unreachable = StoreError("the store is unreachable")
}
