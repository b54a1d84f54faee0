import FlowHostAccounts
import FlowHostAudit
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// One action a notification offers: the button's `label`, the `action`
/// value sent back, and the `authlevel` it needs (the SDK's string; "0" none).
public struct NotificationAction: Sendable, Equatable {
    public let label: String
    public let action: String
    public let authLevel: String

    public init(label: String, action: String, authLevel: String = "0") {
        self.label = label
        self.action = action
        self.authLevel = authLevel
    }
}

/// The notifications domain: messages to a user that one of their devices
/// answers once. Creating one announces it on the change feed in the same
/// transaction (`notifications.created`), so every host where the user is
/// logged in can tell its client at once; answering announces it too.
///
/// Used from one thread at a time (the host's loop, or an admin command).
public final class NotificationService {
    /// The store, the clock, the audit and the feed's bell (not a flow's
    /// `context`, which some methods here take as JSON).
    let context: DomainContext
    var store: any FlowStore { context.store }
    var audit: AuditLog { context.audit }
    var clock: () -> Int64 { context.clock }

    /// Limits on device-approval requests (`ApprovalLimits`).
    public var approvalLimits = ApprovalLimits()
    /// Told of each notification made, in its transaction (`push.command`); nil: no pushes.
    public var push: (any NotificationPushSink)?
    public static let approvalKind = "device-approval"

    public static let createdTopic = "notifications.created"
    public static let updatedTopic = "notifications.updated"
    public static let maxActions = 8

    public init(_ context: DomainContext) {
        self.context = context
    }

    /// Creates a notification for an existing user; returns its uuid.
    public func create(
        userID: String, subject: String, message: String, actions: [NotificationAction], expiresInSeconds: Int64,
        kind: String = "message", context: JSON? = nil, language: String = "English"
    ) throws -> String {
        try Self.check(subject, "subject", 256)
        try Self.check(message, "message", 4096)
        guard (1...Self.maxActions).contains(actions.count) else { throw NotificationError("between 1 and \(Self.maxActions) actions") }
        for action in actions {
            try Self.check(action.label, "action label", 64)
            try Self.check(action.action, "action value", 64)
            guard !action.authLevel.isEmpty, action.authLevel.allSatisfy(\.isNumber), action.authLevel.count <= 2 else {
                throw NotificationError("authlevel must be a small number (\"0\" for none)")
            }
        }
        guard Set(actions.map(\.action)).count == actions.count else { throw NotificationError("action values must differ") }
        guard (10...2_592_000).contains(expiresInSeconds) else { throw NotificationError("expiry must be 10 s to 30 days") }
        let now = clock()
        let uuid = Self.newUUID()
        let body: JSON = [["lng": .string(language), "subject": .string(subject), "message": .string(message), "label": .object()]]
        let actionList = JSON.array(
            actions.map { ["label": .string($0.label), "action": .string($0.action), "authlevel": .string($0.authLevel)] })
        let refused: ApprovalRefused? = try store.write { tx in
            guard try tx.user(userID) != nil else { throw StoreError.notFound }
            if kind == Self.approvalKind {
                // A refusal commits only its counter: nothing else is stored.
                if let refusal = try admitApproval(tx, userID: userID, requester: context?["deviceID"]?.stringValue ?? "", now: now) {
                    try audit.count(tx, userID, "notification.approval", refusal.reason)
                    return refusal
                }
            }
            let record = NotificationRecord(
                uuid: uuid, userID: userID, body: body.serialized(), actions: actionList.serialized(), kind: kind,
                context: context?.serialized(), createdAt: now, expiresAt: now + expiresInSeconds)
            try tx.insert(record)
            try push?.created(record, subject: subject, message: message, in: tx)
            try audit.row(tx, userID, nil, "notification.create", "ok", ["uuid": .string(uuid), "kind": .string(kind)])
            let notice: JSON = ["userID": .string(userID), "uuid": .string(uuid), "kind": .string(kind)]
            try tx.appendFeedEvent(topic: Self.createdTopic, payload: notice.serialized(), at: now)
            return nil
        }
        if let refused { throw refused }
        self.context.ringFeed?()
        return uuid
    }

    /// Applies `approvalLimits` to a new device-approval request, in the
    /// transaction that would store it: the requester's own pending request
    /// is withdrawn (the new one replaces it), or the refusal is returned.
    private func admitApproval(_ tx: any StoreWriter, userID: String, requester: String, now: Int64) throws -> ApprovalRefused? {
        let recent = try tx.notificationHistory(
            userID: userID, created: CreationWindow(from: now - 3600, until: .max), offset: 0, limit: 1000
        ).filter { $0.kind == Self.approvalKind }
        if let refusal = approvalLimits.refusal(recent: recent, requester: requester, now: now) { return refusal }
        for own in recent where own.status == "ACTIVE" && ApprovalLimits.requester(of: own) == requester {
            _ = try tx.withdrawNotification(own.uuid, at: now)
        }
        return nil
    }

    /// The user's active notifications, newest first: the page that starts at
    /// `startIndex` (1-based, the SDK's) with `recordCount` items (0: all),
    /// and the total.
    public func active(
        userID: String, startIndex: Int, recordCount: Int, created: CreationWindow = .all
    ) throws -> (items: [NotificationRecord], total: Int) {
        let now = clock()
        return try store.read { tx in
            let total = try tx.activeNotificationCount(userID: userID, now: now, created: created)
            let items = try tx.activeNotifications(
                userID: userID, now: now, created: created, offset: max(0, startIndex - 1), limit: recordCount <= 0 ? 1000 : min(recordCount, 1000))
            return (items, total)
        }
    }

    public enum AnswerOutcome: Equatable {
        case updated(NotificationRecord)
        case unknown
        case expired
        case actionNotOffered
        case alreadyAnswered
    }

    /// What an answer would meet, without recording it (a flow checks before
    /// it asks for step-up, so a user is not asked to prove themselves for nothing).
    public func check(userID: String, uuid: String, action: String) throws -> (AnswerOutcome, NotificationAction?) {
        let now = clock()
        return try store.read { tx in Self.judge(try tx.notification(uuid), userID: userID, action: action, now: now) }
    }

    /// Records the user's answer: exactly one answer wins, whichever host sends it.
    public func answer(userID: String, uuid: String, action: String, deviceID: String) throws -> AnswerOutcome {
        let now = clock()
        let outcome: AnswerOutcome = try store.write { tx in
            let (judged, _) = Self.judge(try tx.notification(uuid), userID: userID, action: action, now: now)
            guard case .updated = judged else {
                try audit.count(tx, userID, "notification.update", Self.name(judged))
                return judged
            }
            guard try tx.answerNotification(uuid, action: action, deviceID: deviceID, at: now), let updated = try tx.notification(uuid) else {
                return .alreadyAnswered
            }
            try audit.row(tx, userID, deviceID, "notification.update", "ok", ["uuid": .string(uuid), "action": .string(action)])
            let notice: JSON = ["userID": .string(userID), "uuid": .string(uuid), "action": .string(action), "kind": .string(updated.kind)]
            try tx.appendFeedEvent(topic: Self.updatedTopic, payload: notice.serialized(), at: now)
            return .updated(updated)
        }
        if case .updated = outcome { context.ringFeed?() }
        return outcome
    }

    /// Withdraws an active notification (the dialogue that made it ended).
    public func withdraw(_ uuid: String) throws {
        let now = clock()
        try store.write { tx in _ = try tx.withdrawNotification(uuid, at: now) }
    }

    /// The user's notifications, newest first, whatever their state, that
    /// pass `filter`; the page is cut after filtering, so a page is full
    /// whenever enough items match. The newest `historyScanLimit` are searched.
    public func history(
        userID: String, startIndex: Int, recordCount: Int, created: CreationWindow = .all, filter: HistoryFilter = HistoryFilter()
    ) throws -> [NotificationRecord] {
        let now = clock()
        let matching = try store.read { tx in
            try tx.notificationHistory(userID: userID, created: created, offset: 0, limit: Self.historyScanLimit)
        }.filter { filter.admits($0, now: now) }
        let offset = min(max(0, startIndex - 1), matching.count)
        let count = recordCount <= 0 ? 1000 : min(recordCount, 1000)
        return Array(matching[offset..<min(matching.count, offset + count)])
    }

    public static let historyScanLimit = 10_000

    static func judge(_ record: NotificationRecord?, userID: String, action: String, now: Int64) -> (AnswerOutcome, NotificationAction?) {
        // Another user's notification is indistinguishable from an unknown one: its uuid tells nothing.
        guard let record, record.userID == userID else { return (.unknown, nil) }
        guard record.status == "ACTIVE" else { return (.alreadyAnswered, nil) }
        guard record.expiresAt > now else { return (.expired, nil) }
        let offered = actions(of: record).first { $0.action == action }
        guard let offered else { return (.actionNotOffered, nil) }
        return (.updated(record), offered)
    }

    public static func actions(of record: NotificationRecord) -> [NotificationAction] {
        ((try? JSON.parse(record.actions))?.elements ?? []).compactMap { item in
            guard let label = item["label"]?.stringValue, let action = item["action"]?.stringValue else { return nil }
            return NotificationAction(label: label, action: action, authLevel: item["authlevel"]?.stringValue ?? "0")
        }
    }

    static func name(_ outcome: AnswerOutcome) -> String {
        switch outcome {
        case .updated: "ok"
        case .unknown: "unknown"
        case .expired: "expired"
        case .actionNotOffered: "action-not-offered"
        case .alreadyAnswered: "already-answered"
        }
    }

    /// An RFC 4122 version-4 uuid from the system CSPRNG.
    static func newUUID() -> String {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Hex.encode(bytes)
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }

    private static func check(_ text: String, _ what: String, _ limit: Int) throws {
        guard !text.isEmpty, text.unicodeScalarCount <= limit,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" })
        else { throw NotificationError("\(what) must be 1 to \(limit) characters without control characters") }
    }
}

/// Why a notification could not be made (bad input from an operator or a flow).
public struct NotificationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
