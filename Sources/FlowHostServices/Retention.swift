import FlowHostAudit
import FlowHostDelivery
import FlowHostDevices
import FlowHostNotifications
import FlowHostSessions
import FlowHostStore
import FlowHostVocabulary
import FlowJSON
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// How long the store keeps what only history needs, the config section
/// `retention`, so that every table stays bounded however long a store
/// runs. The audit log and its hourly counts go after `auditDays` and
/// `counterDays`, never sooner than 90 days (the database itself refuses to
/// delete a younger row).
public struct RetentionSettings: Sendable, Equatable {
    /// Change-feed events (a host down longer starts from now anyway).
    public var feedHours: Int64 = 24
    /// Notifications that can no longer be answered (answered, withdrawn, expired).
    public var notificationDays: Int64 = 30
    /// Sessions that ended.
    public var endedSessionDays: Int64 = 30
    /// Device challenges, spent or expired.
    public var deviceChallengeMinutes: Int64 = 10
    /// The audit's hourly counts (refused and unauthenticated events).
    public var counterDays: Int64 = 400
    /// The audit log's rows.
    public var auditDays: Int64 = 400
    /// Outbox messages delivered, or given up on (their sealed bodies are of no further use).
    public var outboxDays: Int64 = 7

    public init() {}

    public static let configKey = "retention"

    public static func parse(_ section: JSON?) throws(ConfigError) -> RetentionSettings {
        var settings = RetentionSettings()
        let values = try ConfigSection.integers(
            section, named: configKey,
            ranges: [
                "feedHours": 1...8760, "notificationDays": 1...3650, "endedSessionDays": 1...3650, "deviceChallengeMinutes": 5...10_080,
                "counterDays": 90...3650, "auditDays": 90...3650, "outboxDays": 1...3650,
            ])
        if let value = values["feedHours"] { settings.feedHours = Int64(value) }
        if let value = values["notificationDays"] { settings.notificationDays = Int64(value) }
        if let value = values["endedSessionDays"] { settings.endedSessionDays = Int64(value) }
        if let value = values["deviceChallengeMinutes"] { settings.deviceChallengeMinutes = Int64(value) }
        if let value = values["counterDays"] { settings.counterDays = Int64(value) }
        if let value = values["auditDays"] { settings.auditDays = Int64(value) }
        if let value = values["outboxDays"] { settings.outboxDays = Int64(value) }
        return settings
    }
}

/// Deletes what `RetentionSettings` no longer keeps, in one transaction.
/// A host runs it at most once an hour, after a login; `flowhost admin
/// prune` runs it at once.
public struct RetentionSweep {
    public struct Removed: Sendable, Equatable {
        public var feedEvents = 0
        public var notifications = 0
        public var endedSessions = 0
        public var deviceChallenges = 0
        public var counters = 0
        public var auditRows = 0
        public var outboxMessages = 0

        /// One line for the log and the admin's text output.
        public var summary: String {
            "\(feedEvents) feed events, \(notifications) notifications, \(endedSessions) ended sessions, \(deviceChallenges) device challenges, "
                + "\(counters) hourly counts, \(auditRows) audit rows, \(outboxMessages) outbox messages"
        }
    }

    public static func run(_ store: any FlowStore, _ settings: RetentionSettings, now: Int64) throws -> Removed {
        try store.write(durability: .relaxed) { tx in
            var removed = Removed()
            removed.feedEvents = try tx.pruneFeed(before: now - settings.feedHours * 3600)
            removed.notifications = try tx.pruneNotifications(before: now - settings.notificationDays * 86_400, now: now)
            removed.endedSessions = try tx.pruneEndedSessions(before: now - settings.endedSessionDays * 86_400)
            removed.deviceChallenges = try tx.pruneDeviceChallenges(before: now - settings.deviceChallengeMinutes * 60)
            removed.counters = try tx.pruneAuditCounts(before: now - settings.counterDays * 86_400)
            removed.auditRows = try tx.pruneAudit(before: now - settings.auditDays * 86_400)
            removed.outboxMessages = try tx.pruneOutbox(before: now - settings.outboxDays * 86_400)
            return removed
        }
    }

    /// The host's trigger: a sweep after a login, unless one ran in the last hour here.
    static func hourly(_ store: any FlowStore, _ settings: RetentionSettings, logger: Logger) -> () -> Void {
        // Touched only on the host's loop thread, where `afterLogin` runs.
        var lastRun: Int64?
        return {
            let now = Int64(time(nil))
            if let lastRun, now - lastRun < 3600 { return }
            lastRun = now
            do {
                let removed = try run(store, settings, now: now)
                logger.info(
                    "retention: removed \(removed.summary)")
            } catch {
                logger.error("retention sweep failed: \(error)")
            }
        }
    }
}
