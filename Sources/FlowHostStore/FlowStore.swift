/// The store as flows and services see it: a few protocols, so that a
/// PostgreSQL backend can replace SQLite without touching anything above.
///
/// Every change happens inside `write`, one atomic transaction that holds the
/// database's write lock from its first statement, so read-modify-write steps
/// (attempt counters, single-use codes) are safe across processes that share
/// the store.
public protocol FlowStore: AnyObject, Sendable {
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T
    func write<T>(durability: Durability, _ body: (any StoreWriter) throws -> T) throws -> T
    /// Another connection to the same store, for another thread (the
    /// delivery worker): a store's connection belongs to the thread that uses it.
    func newConnection() throws -> any FlowStore

    // The change feed's reads and lone appends, which each store makes its
    // own way: the defaults (`FeedStore.swift`) suit a store whose writes
    // run one at a time (SQLite); `PostgresStore+Feed.swift` has PostgreSQL's.
    func readFeed(after sequence: Int64, topics: [String], limit: Int) throws -> FeedPage
    func appendFeedEventAlone(topic: String, payload: String, at: Int64, durability: Durability) throws -> Int64
    func feedSubscriptionStart() throws -> Int64
}

/// How hard a commit must be on the disk before `write` returns.
public enum Durability: Sendable {
    /// On stable storage before `write` returns (SQLite: synchronous=FULL).
    /// The default, and required for anything security relevant: lowered
    /// attempt counters, blocks, used codes, credentials.
    case full
    /// Safe against a crash of the process, but a power loss may undo it
    /// (SQLite: synchronous=NORMAL, the WAL is synced at the next checkpoint;
    /// PostgreSQL: synchronous_commit=off). Only for changes whose loss
    /// leaves the account as safe as before: a successful login's session
    /// and its audit lines, restoring attempts after a success.
    case relaxed
}

extension FlowStore {
    public func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        try write(durability: .full, body)
    }
}

/// One open transaction, read-only: what a domain's queries run on. The
/// domains own their tables and their SQL, written as extensions of this
/// protocol (`tx.user(id)` is the accounts domain's, `tx.session(id)` the
/// sessions domain's); the store only runs it, on SQLite or PostgreSQL. SQL
/// uses `?` placeholders; the PostgreSQL connection numbers them.
public protocol StoreReader {
    /// Runs a query and maps each row.
    func query<T>(_ sql: String, _ values: [SQLValue], _ map: (SQLRow) -> T) throws -> [T]
    /// Runs `body`, whose one statement (if it sends any) is the
    /// transaction's last: on PostgreSQL its COMMIT goes with it, in the
    /// same round trip, so the transaction has committed when the statement
    /// returns (through a pooler each round trip saved is two hops). A
    /// statement after it throws.
    func lastStatement<T>(_ body: () throws -> T) throws -> T
    /// Sends `queries` now, together: on PostgreSQL in one round trip (with
    /// the COMMIT, inside `lastStatement`), each answer kept for the
    /// transaction's own `query` of the same SQL and values, which then
    /// sends nothing (and may follow the last statement). A write drops
    /// what is kept. On SQLite it sends nothing: each query runs when asked.
    /// Every transaction but the feed's own read sees one snapshot from its
    /// first statement to its last, so an answer kept is the answer asked.
    func prefetch(_ queries: [StoreQuery]) throws
}

extension StoreReader {
    public func lastStatement<T>(_ body: () throws -> T) throws -> T { try body() }
    public func prefetch(_ queries: [StoreQuery]) throws {}

    /// Runs `query` and maps each row.
    public func query<T>(_ query: StoreQuery, _ map: (SQLRow) -> T) throws -> [T] { try self.query(query.sql, query.values, map) }
}

/// A query and its values, named so that a transaction can send several
/// at once (`StoreReader.prefetch`) before its code asks for each.
public struct StoreQuery: Hashable, Sendable {
    public let sql: String
    public let values: [SQLValue]

    public init(_ sql: String, _ values: [SQLValue]) {
        self.sql = sql
        self.values = values
    }
}

/// One open transaction that may change the store: every statement in it
/// commits together or not at all.
public protocol StoreWriter: StoreReader {
    /// Runs one statement; returns the rows it changed.
    @discardableResult func run(_ sql: String, _ values: [SQLValue]) throws -> Int
    /// Runs an INSERT; returns the new row's `column` (its generated key).
    func insert(_ sql: String, _ values: [SQLValue], returning column: String) throws -> Int64
    /// Runs a write whose result the caller does not need (no row count,
    /// no key). On PostgreSQL it is sent with the transaction's next
    /// statement, or with its COMMIT, in the same round trip: an error it
    /// meets fails that statement or the COMMIT, and so the transaction.
    /// Its order among the transaction's statements is kept. On SQLite it
    /// runs at once.
    func runDeferred(_ sql: String, _ values: [SQLValue]) throws
    /// Registers what to undo outside the database (state a domain keeps in
    /// memory) if this transaction does not commit. The store runs it when
    /// the attempt rolls back, including before it runs the body again after
    /// a busy or conflicting attempt. When the outcome cannot be known (the
    /// PostgreSQL connection was lost during COMMIT) it is not run: what the
    /// transaction took stays taken, which fails closed.
    func onRollback(_ handler: @escaping () -> Void)
    /// Registers what to start once this transaction has committed (waking
    /// a worker for what it wrote). Not run when it rolls back, nor when the
    /// outcome cannot be known: what it would start must be found again by
    /// other means (the worker's own periodic read).
    func onCommit(_ handler: @escaping () -> Void)
}

extension StoreWriter {
    public func runDeferred(_ sql: String, _ values: [SQLValue]) throws { try run(sql, values) }

    /// An INSERT into a table whose generated key is `id`.
    public func insert(_ sql: String, _ values: [SQLValue]) throws -> Int64 { try insert(sql, values, returning: "id") }
}

/// A store operation that failed for a reason the caller can name.
public struct StoreError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }

    public static let userExists = StoreError("user already exists")
    public static let notFound = StoreError("not found")
    /// A statement after the one `lastStatement` marked: a programming error.
    public static let statementAfterLast = StoreError("a statement after the transaction's last")
}
