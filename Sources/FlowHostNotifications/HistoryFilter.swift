import FlowHostPOSIX
import FlowHostStore
import FlowJSON

/// `getNotificationHistory`'s filters: status, action performed, a keyword
/// in a subject or message (case-insensitive) and the device that answered.
/// Empty means any.
public struct HistoryFilter: Sendable, Equatable {
    /// The SDK's statuses. DISMISSED is accepted and matches nothing: FlowHost
    /// has no dismissal.
    public static let statuses: Set<String> = ["ACTIVE", "UPDATED", "EXPIRED", "DISCARDED", "DISMISSED"]

    public var status: String?
    public var action: String?
    public var keyword: String?
    public var answeredBy: String?

    public init(status: String? = nil, action: String? = nil, keyword: String? = nil, answeredBy: String? = nil) throws(NotificationError) {
        func given(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
        self.status = given(status)
        self.action = given(action)
        self.keyword = given(keyword)?.lowercased()
        self.answeredBy = given(answeredBy)
        if let wanted = self.status, !Self.statuses.contains(wanted) {
            throw NotificationError("notificationStatus must be one of \(Self.statuses.sorted().joined(separator: ", ")) or empty")
        }
    }

    public init() {}

    func admits(_ record: NotificationRecord, now: Int64) -> Bool {
        if let status, NotificationShapes.status(of: record, now: now) != status { return false }
        if let action, record.actionPerformed != action { return false }
        if let answeredBy, record.answeredByDevice != answeredBy { return false }
        if let keyword {
            let entries = (try? JSON.parse(record.body))?.elements ?? []
            let found = entries.contains { entry in
                let text = (entry["subject"]?.stringValue ?? "") + " " + (entry["message"]?.stringValue ?? "")
                return text.lowercased().containsBytes(of: keyword)
            }
            if !found { return false }
        }
        return true
    }
}
