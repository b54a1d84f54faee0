/// The audit domain's records: the append-only log, and its hourly counts.

/// One line of the append-only audit log. Never a secret in any field.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64?
    public var at: Int64
    public var userID: String?
    public var deviceID: String?
    public var action: String
    public var outcome: String
    /// Non-secret context as JSON text (status codes, attempts left, …).
    public var detail: String?

    public init(id: Int64? = nil, at: Int64, userID: String?, deviceID: String?, action: String, outcome: String, detail: String? = nil) {
        self.id = id
        self.at = at
        self.userID = userID
        self.deviceID = deviceID
        self.action = action
        self.outcome = outcome
        self.detail = detail
    }
}

/// A count of like events in one hour: what the audit keeps of events that
/// anyone can cause without proving anything (an unknown user id, a reset, a
/// refused resend), so that sending many of them costs the store one row.
public struct AuditCount: Sendable, Equatable {
    /// The hour, as seconds since the epoch rounded down to a multiple of 3600.
    public var hour: Int64
    /// A known user's id; "" when the event names no user (or an unknown one).
    public var userID: String
    public var action: String
    public var outcome: String
    public var count: Int64
    public var lastAt: Int64

    public init(hour: Int64, userID: String, action: String, outcome: String, count: Int64, lastAt: Int64) {
        self.hour = hour
        self.userID = userID
        self.action = action
        self.outcome = outcome
        self.count = count
        self.lastAt = lastAt
    }
}
