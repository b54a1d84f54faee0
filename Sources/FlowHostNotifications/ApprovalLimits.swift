import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// Limits on device-approval requests, against push fatigue (NIST SP
/// 800-63B §5.2.2): a stranger who names a user must not be able to flood
/// that user's devices with requests, nor their store with rows.
///
/// - One pending request per requesting device: a device that asks again
///   replaces its own earlier request.
/// - At most `pendingPerUser` pending requests from different devices.
/// - At most `perUserPerHour` requests for a user, and `perRequesterPerHour`
///   from one device, in any hour.
///
/// A refused request stores nothing: it costs an hourly counter in the
/// audit (`notification.approval`), not a row.
public struct ApprovalLimits: Sendable, Equatable {
    public var pendingPerUser: Int
    public var perUserPerHour: Int
    public var perRequesterPerHour: Int

    public init(pendingPerUser: Int = 3, perUserPerHour: Int = 10, perRequesterPerHour: Int = 5) {
        self.pendingPerUser = pendingPerUser
        self.perUserPerHour = perUserPerHour
        self.perRequesterPerHour = perRequesterPerHour
    }

    /// The config section `approvals`: `pendingPerUser`, `perUserPerHour`, `perRequesterPerHour`.
    public static let configKey = "approvals"

    public static func parse(_ section: JSON?) throws(ConfigError) -> ApprovalLimits {
        var limits = ApprovalLimits()
        let values = try ConfigSection.integers(
            section, named: configKey, ranges: ["pendingPerUser": 1...20, "perUserPerHour": 1...1000, "perRequesterPerHour": 1...100])
        if let value = values["pendingPerUser"] { limits.pendingPerUser = value }
        if let value = values["perUserPerHour"] { limits.perUserPerHour = value }
        if let value = values["perRequesterPerHour"] { limits.perRequesterPerHour = value }
        return limits
    }

    /// Why a new request from `requester` for a user with these `recent`
    /// requests (made in the last hour, any state) must wait, and how long;
    /// nil when it may be made. `requester`'s own pending request does not
    /// count against the pending cap: the new one replaces it.
    func refusal(recent: [NotificationRecord], requester: String, now: Int64) -> ApprovalRefused? {
        let hourAgo = now - 3600
        let lastHour = recent.filter { $0.createdAt > hourAgo }
        let pendingOthers = lastHour.filter { $0.status == "ACTIVE" && $0.expiresAt > now && Self.requester(of: $0) != requester }
        if pendingOthers.count >= pendingPerUser {
            let next = pendingOthers.map(\.expiresAt).min() ?? now + 60
            return ApprovalRefused(reason: "too-many-pending", retryAfterSeconds: max(1, next - now))
        }
        func wait(_ records: [NotificationRecord], _ limit: Int) -> Int64? {
            guard records.count >= limit, let oldest = records.map(\.createdAt).sorted().dropLast(limit - 1).last else { return nil }
            return max(1, oldest + 3600 - now)
        }
        if let after = wait(lastHour.filter { Self.requester(of: $0) == requester }, perRequesterPerHour) {
            return ApprovalRefused(reason: "rate-requester", retryAfterSeconds: after)
        }
        if let after = wait(lastHour, perUserPerHour) { return ApprovalRefused(reason: "rate-user", retryAfterSeconds: after) }
        return nil
    }

    /// The device that asked: the `deviceID` of the request's context.
    static func requester(of record: NotificationRecord) -> String {
        record.context.flatMap { try? JSON.parse($0) }?["deviceID"]?.stringValue ?? ""
    }
}

/// A device-approval request refused by `ApprovalLimits`: nothing was stored.
public struct ApprovalRefused: Error, Equatable, CustomStringConvertible {
    /// too-many-pending, rate-requester, rate-user.
    public let reason: String
    public let retryAfterSeconds: Int64
    public var description: String { "approval request refused (\(reason)); retry after \(retryAfterSeconds) s" }
}
