import FlowHostAccounts
import FlowHostAudit
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// The sessions domain inside a transaction: opening one, ending all of a
/// user's, ending those past their lifetimes. Other domains call it in
/// their own transactions (a password login opens its session in the
/// transaction that checked the password).
public struct SessionLedger {
    public let settings: SessionSettings
    let audit: AuditLog
    let clock: () -> Int64

    /// The feed topic on which ended sessions are announced (the engine listens).
    public static let endedTopic = "sessions.ended"

    public init(settings: SessionSettings, audit: AuditLog, clock: @escaping () -> Int64) {
        self.settings = settings
        self.audit = audit
        self.clock = clock
    }

    /// A new session (after ending the expired ones), and the feed's position
    /// as it opens. The last step of its transaction, so the position holds
    /// every event written before this session can be ended; the position's
    /// read carries the transaction's COMMIT (`lastStatement`).
    public func open(_ tx: any StoreWriter, userID: String, deviceID: String, workflow: String) throws -> OpenedSession {
        let now = clock()
        // The writes before the position's read are deferred: they go with
        // it and the COMMIT, in one round trip.
        try tx.endExpiredSessionsDeferred(
            idleBefore: now - settings.idleTimeoutSeconds, createdBefore: now - settings.lifetimeSeconds, at: now)
        try tx.touchDevice(userID: userID, deviceID: deviceID, at: now)
        let sessionID = SessionIdentifier.make(openedAt: now)
        try tx.insert(SessionRecord(sessionID: sessionID, userID: userID, deviceID: deviceID, workflow: workflow, createdAt: now))
        try audit.row(tx, userID, deviceID, "session.open", "ok", ["workflow": .string(workflow)])
        return OpenedSession(sessionID: sessionID, feedPosition: try tx.lastStatement { try tx.latestFeedSequence() })
    }

    /// Ends all of a user's open sessions, on every device, with one audit
    /// row, and announces it on the change feed in the same transaction: a
    /// host where one of them is in use ends it there too. Returns whether
    /// the feed grew (the caller rings its wake-up after the commit).
    @discardableResult
    public func endAll(_ tx: any StoreWriter, userID: String, reason: String) throws -> Bool {
        let now = clock()
        let open = try tx.openSessions(userID: userID).map(\.sessionID)
        guard !open.isEmpty else { return false }
        let ended = try tx.endSessions(userID: userID, deviceID: nil, at: now, reason: reason)
        try audit.row(tx, userID, nil, "session.close", reason, ["sessions": .int(ended)])
        let notice: JSON = ["userID": .string(userID), "sessionIDs": .array(open.map(JSON.string)), "reason": .string(reason)]
        try tx.appendFeedEvent(topic: Self.endedTopic, payload: notice.serialized(), at: now)
        return true
    }

    /// Ends every session past its idle or absolute lifetime.
    @discardableResult
    public func expire(_ tx: any StoreWriter, now: Int64) throws -> Int {
        try tx.endExpiredSessions(idleBefore: now - settings.idleTimeoutSeconds, createdBefore: now - settings.lifetimeSeconds, at: now)
    }
}
