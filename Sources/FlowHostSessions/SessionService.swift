import FlowHostAudit
import FlowHostStore

/// The sessions domain's own operations: ending one (logoff, host exit),
/// recording use, asking whether one is still open.
///
/// Used from one thread at a time (the host's loop, or an admin command).
public final class SessionService {
    public let store: any FlowStore
    public let ledger: SessionLedger
    let audit: AuditLog
    let clock: () -> Int64

    public init(_ context: DomainContext, settings: SessionSettings) {
        store = context.store
        ledger = SessionLedger(settings: settings, audit: context.audit, clock: context.clock)
        audit = context.audit
        clock = context.clock
    }

    public var settings: SessionSettings { ledger.settings }

    /// Ends a session (`reason`: logoff, host-exit, …). Ending one that has
    /// ended already (by a block, or its lifetime) is not an error.
    public func end(_ sessionID: String, reason: String = "logoff") throws {
        let now = clock()
        // Losing a session's end to a power loss changes no credential.
        try store.write(durability: .relaxed) { tx in
            guard let session = try tx.session(sessionID) else { throw StoreError.notFound }
            guard session.endedAt == nil else { return }
            try tx.endSession(sessionID, at: now, reason: reason)
            try audit.row(tx, session.userID, session.deviceID, "session.close", reason)
        }
    }

    /// Records that a session was used: its idle lifetime restarts.
    public func touch(_ sessionID: String) throws {
        let now = clock()
        try store.write(durability: .relaxed) { try $0.touchSession(sessionID, at: now) }
    }

    /// Whether a session is still open, after ending the expired ones.
    public func isOpen(_ sessionID: String) throws -> Bool {
        try endExpired()
        return try store.read { try $0.session(sessionID)?.endedAt == nil }
    }

    /// Ends every session past its idle or absolute lifetime.
    @discardableResult
    public func endExpired() throws -> Int {
        let now = clock()
        return try store.write(durability: .relaxed) { try ledger.expire($0, now: now) }
    }
}
