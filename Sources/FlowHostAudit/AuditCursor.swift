import FlowHostStore

/// Reads the audit log as a stream: every row once, in the order of its
/// `seq` (the row's id), from a cursor a reader can resume at. A row is
/// handed out only once no row with a lower seq can still appear.
///
/// - SQLite has one writer at a time, and a row's id is one above the
///   highest when it is written: seq order is commit order, and every row a
///   reader sees is final.
/// - PostgreSQL draws an id at insert, and transactions commit in another
///   order: a reader that has seen 10 may see 9 later. Here the cursor first
///   notes the highest id given so far, then the transactions running; rows
///   up to that id are final once those transactions have all finished
///   (`audit/v5-stream-order` makes each row's transaction take its
///   transaction id before its row's id). Until then `next` hands out
///   nothing new and `waiting` is true. A transaction held open holds the
///   stream back, never past it.
///
/// Used from one thread at a time.
public final class AuditCursor {
    /// The seq of the last row handed out: where a reader resumes.
    public private(set) var seq: Int64
    private let store: any FlowStore
    private let commitOrdered: Bool
    /// PostgreSQL: every id up to here has been read (rows or gaps).
    private var readThrough: Int64
    private var pending: Horizon?

    /// Ids up to `highest` are final once every transaction in `running` has finished.
    private struct Horizon {
        let highest: Int64
        let running: String
        var settled = false
    }

    public init(store: any FlowStore, after seq: Int64) {
        self.store = store
        self.seq = seq
        readThrough = seq
        commitOrdered = !(store is PostgresStore)
    }

    /// Rows past a horizon that waits on transactions still running.
    public var waiting: Bool { pending.map { !$0.settled } ?? false }

    /// The final rows after the cursor, oldest first, at most `limit`; the
    /// cursor moves past them. Empty when there is nothing new, or nothing
    /// new that is final yet (`waiting`).
    public func next(limit: Int) throws -> [AuditEntry] {
        if commitOrdered {
            let rows = try store.read { try $0.auditEntries(after: seq, through: Int64.max, limit: limit) }
            if let last = rows.last?.id { seq = last }
            return rows
        }
        if pending == nil {
            let highest = try store.read { try $0.auditHighestGiven() }
            guard highest > readThrough else { return [] }
            // Read after the highest id, in a transaction of its own: a
            // transaction's snapshot is taken at its first statement, and
            // this one must see every transaction that drew an id up to `highest`.
            pending = Horizon(highest: highest, running: try store.read { try $0.runningTransactions() })
        }
        guard var horizon = pending else { return [] }
        let (from, limitHere) = (readThrough, limit)
        let rows: [AuditEntry]? = try store.read { tx in
            // One snapshot for the check and the read: once it sees those
            // transactions finished, it sees everything they wrote.
            guard try horizon.settled || tx.finished(horizon.running) else { return nil }
            return try tx.auditEntries(after: from, through: horizon.highest, limit: limitHere)
        }
        guard let rows else { return [] }
        horizon.settled = true
        if rows.count < limit {
            readThrough = horizon.highest
            pending = nil
        } else {
            readThrough = rows.last?.id ?? readThrough
            pending = horizon
        }
        if let last = rows.last?.id { seq = last }
        return rows
    }
}
