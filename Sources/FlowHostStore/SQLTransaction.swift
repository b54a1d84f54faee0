/// A transaction as the domains see it, over either database's connection.
struct SQLTransaction: StoreWriter {
    let db: any SQLDatabase
    /// This attempt's handlers for its rollback and its commit; `nil` for a read.
    let handlers: TransactionHandlers?
    /// Whether the statement marked last was sent: checked on SQLite too,
    /// so a domain's unit tests catch a statement after it, which would
    /// fail only on PostgreSQL (its COMMIT went with the marked one).
    private let last = LastStatementMark()

    init(db: any SQLDatabase, handlers: TransactionHandlers? = nil) {
        self.db = db
        self.handlers = handlers
    }

    func query<T>(_ sql: String, _ values: [SQLValue], _ map: (SQLRow) -> T) throws -> [T] {
        // A prefetched query sends nothing on PostgreSQL (SQLite runs it).
        if !last.takePrefetched(StoreQuery(sql, values)) { try last.beforeStatement() }
        return try db.query(sql, values, map)
    }

    func prefetch(_ queries: [StoreQuery]) throws {
        guard !queries.isEmpty else { return }
        try last.beforeStatement()
        last.prefetched += queries
        try db.prefetch(queries)
    }

    @discardableResult func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        try last.beforeWrite()
        return try db.run(sql, values)
    }

    func insert(_ sql: String, _ values: [SQLValue], returning column: String) throws -> Int64 {
        try last.beforeWrite()
        return try db.insert(sql, values, returning: column)
    }

    func runDeferred(_ sql: String, _ values: [SQLValue]) throws {
        try last.beforeDeferred()
        try db.runDeferred(sql, values)
    }

    func lastStatement<T>(_ body: () throws -> T) throws -> T {
        last.armed = true
        defer { last.armed = false }
        // SQLite's COMMIT is no round trip: only PostgreSQL's is worth sending along.
        guard let connection = db as? PostgresConnection else { return try body() }
        connection.commitsWithNext = true
        // A body that sent no statement leaves the COMMIT to the store, as usual.
        defer { connection.commitsWithNext = false }
        return try body()
    }

    func onRollback(_ handler: @escaping () -> Void) {
        guard let handlers else { preconditionFailure("onRollback in a read transaction") }
        handlers.addRollback(handler)
    }

    func onCommit(_ handler: @escaping () -> Void) {
        guard let handlers else { preconditionFailure("onCommit in a read transaction") }
        handlers.addCommit(handler)
    }
}

/// One transaction's `lastStatement` and `prefetch` state, shared by the
/// copies of its `SQLTransaction` (a value the domains pass around). Kept
/// on SQLite too, so a domain's unit tests catch what would fail only on
/// PostgreSQL.
final class LastStatementMark {
    /// Inside `lastStatement`: the next statement is the last.
    var armed = false
    var sent = false
    /// Queries prefetched and not yet asked for: asking sends nothing.
    var prefetched: [StoreQuery] = []

    func beforeStatement() throws {
        guard !sent else { throw StoreError.statementAfterLast }
        if armed { sent = true }
    }

    /// A write drops what was prefetched, as the PostgreSQL connection does.
    func beforeWrite() throws {
        prefetched.removeAll()
        try beforeStatement()
    }

    /// A deferred write goes ahead of the marked statement, in its round
    /// trip: it is not the last itself, and it may not follow it.
    func beforeDeferred() throws {
        guard !sent else { throw StoreError.statementAfterLast }
        prefetched.removeAll()
    }

    /// Whether `query` was prefetched (and is now taken).
    func takePrefetched(_ query: StoreQuery) -> Bool {
        guard let index = prefetched.firstIndex(of: query) else { return false }
        prefetched.remove(at: index)
        return true
    }
}

/// The handlers one attempt of a write registered with `onRollback` and
/// `onCommit`. The store makes one per attempt and, when the attempt is
/// known not to have committed, runs the rollback handlers (last registered
/// first) before it runs the body again or throws; after a commit it runs
/// the commit handlers instead. Touched only inside the store's lock, by
/// the thread that runs the transaction.
final class TransactionHandlers {
    private var rollbackHandlers: [() -> Void] = []
    private var commitHandlers: [() -> Void] = []

    func addRollback(_ handler: @escaping () -> Void) { rollbackHandlers.append(handler) }

    func addCommit(_ handler: @escaping () -> Void) { commitHandlers.append(handler) }

    /// The attempt committed: runs the commit handlers in order, drops the rest.
    func committed() {
        let pending = commitHandlers
        commitHandlers.removeAll()
        rollbackHandlers.removeAll()
        for handler in pending { handler() }
    }

    /// The attempt did not commit: runs the rollback handlers, last
    /// registered first, drops the rest.
    func rolledBack() {
        let pending = rollbackHandlers
        rollbackHandlers.removeAll()
        commitHandlers.removeAll()
        for handler in pending.reversed() { handler() }
    }
}
