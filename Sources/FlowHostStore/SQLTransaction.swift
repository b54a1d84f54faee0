/// A transaction as the domains see it, over either database's connection.
struct SQLTransaction: StoreWriter {
    let db: any SQLDatabase
    /// This attempt's "if it does not commit" handlers; `nil` for a read.
    let rollbackHandlers: RollbackHandlers?

    init(db: any SQLDatabase, rollbackHandlers: RollbackHandlers? = nil) {
        self.db = db
        self.rollbackHandlers = rollbackHandlers
    }

    func query<T>(_ sql: String, _ values: [SQLValue], _ map: (SQLRow) -> T) throws -> [T] { try db.query(sql, values, map) }

    @discardableResult func run(_ sql: String, _ values: [SQLValue]) throws -> Int { try db.run(sql, values) }

    func insert(_ sql: String, _ values: [SQLValue], returning column: String) throws -> Int64 { try db.insert(sql, values, returning: column) }

    func onRollback(_ handler: @escaping () -> Void) {
        guard let rollbackHandlers else { preconditionFailure("onRollback in a read transaction") }
        rollbackHandlers.add(handler)
    }

    func onCommit(_ handler: @escaping () -> Void) {
        guard let rollbackHandlers else { preconditionFailure("onCommit in a read transaction") }
        rollbackHandlers.addCommitted(handler)
    }
}

/// The handlers one attempt of a write registered with `onRollback` (and
/// `onCommit`). The store makes one per attempt and, when the attempt is
/// known not to have committed, runs the rollback handlers (last registered
/// first) before it runs the body again or throws; after a commit it runs
/// the commit handlers instead. Touched only inside the store's lock, by
/// the thread that runs the transaction.
final class RollbackHandlers {
    private var handlers: [() -> Void] = []
    private var committedHandlers: [() -> Void] = []

    func add(_ handler: @escaping () -> Void) { handlers.append(handler) }

    func addCommitted(_ handler: @escaping () -> Void) { committedHandlers.append(handler) }

    /// The attempt committed: runs the commit handlers in order, drops the rest.
    func committed() {
        let pending = committedHandlers
        committedHandlers.removeAll()
        handlers.removeAll()
        for handler in pending { handler() }
    }

    /// Runs and drops every handler, in reverse order of registration.
    func run() {
        let pending = handlers
        handlers.removeAll()
        committedHandlers.removeAll()
        for handler in pending.reversed() { handler() }
    }
}
