import FlowJSON

/// Who is logged in on this host: a fact of the host, not of one flow.
/// Flows read it (`session` in the host table), hear when it changes
/// (`notify("session", …)`), and may end it (`end_session`).
public struct HostSession: Equatable {
    public let userID: String
    public let sessionID: String
    public let deviceID: String
    /// Seconds since the epoch.
    public let since: Int64
    public var lastProvedAt: Int64
    /// "password", "lda".
    public var factors: [String]
    public var ldaType: Int?
    /// The flow whose login opened it: the one that may reset other flows' dialogues under it.
    public let openedBy: String
    /// Monotonic milliseconds: when it began, and when it was last used.
    let startedMs: UInt64
    var lastActivityMs: UInt64
    var lastPersistedMs: UInt64
    /// The activity time the idle warning was sent for (one warning per idle spell).
    var warnedForActivityMs: UInt64?

    func json() -> JSON {
        [
            "userID": .string(userID), "sessionID": .string(sessionID), "deviceID": .string(deviceID), "since": .int(Int(since)),
            "lastProvedAt": .int(Int(lastProvedAt)), "factors": .array(factors.map(JSON.string)),
            "ldaType": .optional(ldaType, JSON.int),
        ]
    }
}

/// Where the host's session is kept beyond this process: the store.
/// Implemented by the sessions module; every call is on the loop thread.
public protocol SessionKeeper: AnyObject {
    /// Ends the session in the store.
    func end(sessionID: String, reason: String) throws
    /// Records use, so the store's idle lifetime restarts.
    func touch(sessionID: String) throws
    var idleTimeoutSeconds: Int64 { get }
    var lifetimeSeconds: Int64 { get }
    /// How long before the idle end the client is warned.
    var idleWarningSeconds: Int64 { get }
}

/// The store's change feed, as the engine uses it. Implemented over the
/// store (SQLite: a table and a wake-up file watched with inotify;
/// PostgreSQL: LISTEN/NOTIFY); used on the loop thread.
public protocol ChangeFeed: AnyObject {
    /// Appends an event in its own transaction, then wakes every listening host.
    func publish(topic: String, payload: JSON) throws
    /// The newest event's sequence number (0 when there is none).
    func latestSequence() throws -> Int64
    /// Events after `sequence` whose topic is in `topics`, oldest first.
    func events(after sequence: Int64, topics: Set<String>, limit: Int) throws -> [FeedEvent]
    /// Becomes readable when another host may have published; nil to rely on polling.
    var wakeDescriptor: Int32? { get }
    /// Consumes what made `wakeDescriptor` readable.
    func drainWake()
    /// The host now follows `topics`, after `cursor` (no topic: nothing):
    /// a feed relayed between the hosts of a machine passes it on.
    func follow(_ topics: Set<String>, after cursor: Int64)
    /// What the loop waits on while nothing is subscribed: a relay that
    /// is kept a while after its last follow; nil when there is none.
    var idleWakeDescriptor: Int32? { get }
    /// A host topic's event as the store bears it out now (its payload
    /// rebuilt from the store's records), or nil when the store does not:
    /// a session still open, a notification that does not exist or was
    /// not answered so. Only the host's domains write host topics; this is
    /// the check that a write around them cannot pass.
    func confirm(_ event: FeedEvent) -> FeedEvent?
    /// Whether a confirmed host topic's event is `viewer`'s business: a host
    /// hears of its session user's sessions and notifications, and of the
    /// notifications its own flows created, never of other users'.
    func concerns(_ event: FeedEvent, _ viewer: FeedViewer) -> Bool
}

extension ChangeFeed {
    public func follow(_ topics: Set<String>, after cursor: Int64) {}
    public var idleWakeDescriptor: Int32? { nil }
}

/// Who reads a host topic's event on this host: its session's user, if any.
public struct FeedViewer {
    public let sessionUserID: String?
    public init(sessionUserID: String?) { self.sessionUserID = sessionUserID }
}

public struct FeedEvent {
    public let sequence: Int64
    public let topic: String
    public let payload: JSON
    public init(sequence: Int64, topic: String, payload: JSON) {
        self.sequence = sequence
        self.topic = topic
        self.payload = payload
    }
}
