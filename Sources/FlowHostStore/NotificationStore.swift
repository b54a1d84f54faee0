/// The notifications domain's part of a transaction.
public protocol NotificationReader {
    func notification(_ uuid: String) throws -> NotificationRecord?
    /// The user's active notifications (not answered, not expired at `now`), newest first.
    func activeNotifications(userID: String, now: Int64, created: CreationWindow, offset: Int, limit: Int) throws -> [NotificationRecord]
    func activeNotificationCount(userID: String, now: Int64, created: CreationWindow) throws -> Int
    /// The user's notifications, newest first, whatever their state.
    func notificationHistory(userID: String, created: CreationWindow, offset: Int, limit: Int) throws -> [NotificationRecord]
}

/// Creation times a listing keeps: `from` inclusive, `until` exclusive (seconds).
public struct CreationWindow: Sendable, Equatable {
    public var from: Int64
    public var until: Int64
    public init(from: Int64, until: Int64) {
        self.from = from
        self.until = until
    }
    public static let all = CreationWindow(from: .min, until: .max)
}

public protocol NotificationWriter: NotificationReader {
    func insert(_ notification: NotificationRecord) throws
    /// Records the answer if the notification is still active: false when
    /// it was answered, withdrawn or expired meanwhile (exactly one answer wins).
    func answerNotification(_ uuid: String, action: String, deviceID: String, at: Int64) throws -> Bool
    /// Uses an accepted device approval once (it completes one activation):
    /// false when it is not the user's, not an accepted approval, or used already.
    func consumeApproval(_ uuid: String, userID: String, at: Int64) throws -> Bool
    /// Withdraws an active notification (its dialogue was cancelled).
    @discardableResult func withdrawNotification(_ uuid: String, at: Int64) throws -> Bool
    /// Deletes notifications made before `before` that can no longer be
    /// answered at `now` (answered, withdrawn or expired); returns how many.
    @discardableResult func pruneNotifications(before: Int64, now: Int64) throws -> Int
}

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
