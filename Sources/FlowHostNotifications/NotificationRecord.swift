/// A notification to a user, in the SDK's terms: per-language `body`
/// entries, `actions` (`label`, `action`, `authlevel`), an expiry.
public struct NotificationRecord: Sendable, Equatable {
    public var uuid: String
    public var userID: String
    /// JSON text: `[{lng, subject, message, label}]`.
    public var body: String
    /// JSON text: `[{label, action, authlevel}]`.
    public var actions: String
    public var dsRequired: Bool
    /// "message", "device-approval", "info": who made it and why.
    public var kind: String
    /// JSON text for the flow that made it (never shown to clients), or nil.
    public var context: String?
    public var createdAt: Int64
    public var expiresAt: Int64
    /// "ACTIVE", "UPDATED", "DISCARDED".
    public var status: String
    public var actionPerformed: String?
    public var updatedAt: Int64?
    public var answeredByDevice: String?

    public init(
        uuid: String, userID: String, body: String, actions: String, dsRequired: Bool = false, kind: String = "message",
        context: String? = nil, createdAt: Int64, expiresAt: Int64, status: String = "ACTIVE", actionPerformed: String? = nil,
        updatedAt: Int64? = nil, answeredByDevice: String? = nil
    ) {
        self.uuid = uuid
        self.userID = userID
        self.body = body
        self.actions = actions
        self.dsRequired = dsRequired
        self.kind = kind
        self.context = context
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.status = status
        self.actionPerformed = actionPerformed
        self.updatedAt = updatedAt
        self.answeredByDevice = answeredByDevice
    }
}
