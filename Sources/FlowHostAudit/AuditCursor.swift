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
///   notes the highest id given so far, then takes a transaction id of its
///   own (in a transaction that commits at once). Every writer of an id up
///   to the noted one took its transaction id before that id
///   (`audit/v5-stream-order`), so before the cursor's: rows up to the
///   noted id are final once no transaction with an id up to the cursor's
///   is still running (the oldest running one is newer). Until then `next`
///   hands out nothing new and `waiting` is true. A transaction held open
///   holds the stream back, never past it.
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

    /// Ids up to `highest` are final once every transaction with an id up to `xid` has finished.
    private struct Horizon {
        let highest: Int64
        let xid: String
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
            // Taken after the highest id was read: its transaction id is
            // then above those of every writer of an id up to `highest`.
            pending = Horizon(highest: highest, xid: try store.write(durability: .relaxed) { try $0.takeTransactionID() })
        }
        guard var horizon = pending else { return [] }
        let (from, limitHere) = (readThrough, limit)
        let rows: [AuditEntry]? = try store.read { tx in
            // One snapshot for the check and the read: once it sees those
            // transactions finished, it sees everything they wrote.
            guard try horizon.settled || tx.finished(through: horizon.xid) else { return nil }
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
