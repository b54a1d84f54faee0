import FlowHostStore

/// Where a deployment's `events.command` learns of audit rows: a sink that
/// `AuditLog.row` hands each row to, inside the row's transaction, so that
/// what the sink keeps commits with the row or not at all. The command
/// itself runs after the commit, elsewhere (`FlowHostDelivery`).
public protocol AuditEventSink: AnyObject {
    /// `entry` has its `seq` (`id`) set.
    func appended(_ entry: AuditEntry, in tx: any StoreWriter) throws
}

/// The audit log's sink, if any. One object shared by every copy of an
/// `AuditLog`, set once while the host is built, before the first row.
public final class AuditEvents {
    public var sink: (any AuditEventSink)?

    public init() {}
}
