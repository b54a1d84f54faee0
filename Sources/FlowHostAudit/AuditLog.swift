import FlowHostAccounts
import FlowHostStore
import FlowJSON

/// The audit domain: what the store keeps of what happened.
///
/// A change of state gets a row (`row`): a code accepted, an attempt spent,
/// a block, a credential, a session opened or ended; each is bounded by the
/// attempts and rate limits that guard it. An event anyone can cause
/// without proving anything, and that changes nothing, is counted per hour
/// (`count`): repeating it costs no row. Neither ever holds a secret.
public struct AuditLog {
    let clock: () -> Int64
    /// Shared by every copy of this log: set once, before the first row.
    public let events = AuditEvents()

    public init(clock: @escaping () -> Int64) { self.clock = clock }

    /// A row in the append-only log, inside the caller's transaction (and,
    /// when `events` has a sink, whatever the sink adds to it).
    public func row(_ tx: any StoreWriter, _ userID: String?, _ deviceID: String?, _ action: String, _ outcome: String, _ detail: JSON? = nil) throws {
        var entry = AuditEntry(at: clock(), userID: userID, deviceID: deviceID, action: action, outcome: outcome, detail: detail?.serialized())
        // Only a sink needs the row's id: without one the row goes with the
        // transaction's next statement or its COMMIT.
        guard let sink = events.sink else { return try tx.appendDeferred(entry) }
        entry.id = try tx.append(entry)
        try sink.appended(entry, in: tx)
    }

    /// One more of the hour's like events, inside the caller's transaction.
    public func count(_ tx: any StoreWriter, _ userID: String?, _ action: String, _ outcome: String) throws {
        try tx.count(action: action, outcome: outcome, userID: userID, at: clock())
    }

    /// A flow's own event (`audit.record`), always counted. An id that names
    /// no known user is not kept in any form: it may be a password typed
    /// into the wrong field.
    public func record(in store: any FlowStore, userID: String?, action: String, outcome: String) throws {
        try store.write(durability: .relaxed) { tx in
            let known = try userID.flatMap { try tx.user($0) }?.userID
            try tx.count(action: Self.bounded(action), outcome: Self.bounded(outcome), userID: known, at: clock())
        }
    }

    /// Action and outcome names from flows are short identifiers; anything
    /// else is cut, so a flow cannot make the counter key unbounded.
    static func bounded(_ name: String) -> String {
        let kept = name.unicodeScalars.prefix(64).filter {
            $0.isASCII && ($0.properties.isAlphabetic || "0123456789.-_".unicodeScalars.contains($0))
        }
        return kept.isEmpty ? "other" : String(String.UnicodeScalarView(kept))
    }
}
