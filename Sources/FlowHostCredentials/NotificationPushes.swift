import FlowHostDelivery
import FlowHostNotifications
import FlowHostSessions
import FlowHostStore

/// Which devices a new notification is pushed to: each active device of its
/// user that has a push token and no live host when the push runs. A live
/// host is one where the user is logged in on that device (an open session
/// in the store, used within the idle timeout and begun within the
/// lifetime): that host tells its client through the change feed
/// (`onNotificationReceived`), on whatever machine it runs, and a push would
/// only repeat it. A device with a live host when the notification is made
/// is still given a push, postponed (`PushDelivery.liveHostGraceSeconds`)
/// and checked again when it runs: a host that exits meanwhile (its client
/// left as the notification came) may never have passed it on, and its
/// device is then pushed. A host that died without ending its session
/// counts as live until that session would have expired: the device is then
/// not pushed, rather than pushed twice. The pushes are sealed in the
/// notification's transaction (`PushDelivery`).
public final class NotificationPushes: NotificationPushSink {
    /// The runner, for the host to drain and an admin command to run.
    public let delivery: PushDelivery
    let sessions: SessionSettings
    let clock: () -> Int64

    public init(_ delivery: PushDelivery, sessions: SessionSettings, clock: @escaping () -> Int64) {
        self.delivery = delivery
        self.sessions = sessions
        self.clock = clock
    }

    /// The token to push a notification to when its push runs, or nil when
    /// it is not to be sent: the device has no token (revoked or deleted
    /// since) or a live host now, or the notification no longer waits for
    /// an answer (answered, withdrawn or expired: a push would announce what
    /// the app can no longer show).
    public static func token(
        _ reader: any StoreReader, userID: String, deviceID: String, notificationID: String, sessions: SessionSettings, at now: Int64
    ) throws -> String? {
        guard let notification = try reader.notification(notificationID), notification.userID == userID, notification.status == "ACTIVE",
            notification.expiresAt > now
        else { return nil }
        return try reader.pushTarget(
            userID: userID, deviceID: deviceID, seenSince: now - sessions.idleTimeoutSeconds, createdSince: now - sessions.lifetimeSeconds)
    }

    public func created(_ notification: NotificationRecord, subject: String, message: String, in tx: any StoreWriter) throws {
        let now = clock()
        let targets = try tx.pushTargets(
            userID: notification.userID, seenSince: now - sessions.idleTimeoutSeconds, createdSince: now - sessions.lifetimeSeconds)
        for (deviceID, live) in targets {
            try delivery.enqueue(
                userID: notification.userID, deviceID: deviceID, live: live, notificationID: notification.uuid, subject: subject, message: message, in: tx,
                at: now)
        }
    }
}
