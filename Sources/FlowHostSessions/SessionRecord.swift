/// A login on one device, from its start to its end.
public struct SessionRecord: Sendable, Equatable {
    public var sessionID: String
    public var userID: String
    public var deviceID: String
    public var workflow: String
    public var createdAt: Int64
    /// The last time the session was used (its idle lifetime counts from here).
    public var lastSeenAt: Int64
    public var endedAt: Int64?
    /// Why it ended: `logoff`, `blocked`, `idle`, `lifetime`, `host-exit`, …
    public var endReason: String?

    public init(
        sessionID: String, userID: String, deviceID: String, workflow: String, createdAt: Int64, lastSeenAt: Int64? = nil,
        endedAt: Int64? = nil, endReason: String? = nil
    ) {
        self.sessionID = sessionID
        self.userID = userID
        self.deviceID = deviceID
        self.workflow = workflow
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt ?? createdAt
        self.endedAt = endedAt
        self.endReason = endReason
    }
}
