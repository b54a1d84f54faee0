import FlowHostPOSIX
import FlowHostStore
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Notifications in the REL-ID SDK's JSON shapes (the items of
/// `onGetNotifications` and `onGetNotificationsHistory`).
public enum NotificationShapes {
    /// An active notification: `notification_uuid`, `create_ts(_epoch)`,
    /// `expiry_timestamp(_epoch)`, `body`, `actions`, `action_performed`, `ds_required`.
    public static func item(_ record: NotificationRecord) -> JSON {
        [
            "notification_uuid": .string(record.uuid), "create_ts": .string(timestamp(record.createdAt)),
            "create_ts_epoch": .int(Int(record.createdAt)), "expiry_timestamp": .string(timestamp(record.expiresAt)),
            "expiry_timestamp_epoch": .int(Int(record.expiresAt)), "body": (try? JSON.parse(record.body)) ?? .array(),
            "actions": (try? JSON.parse(record.actions)) ?? .array(), "action_performed": .string(record.actionPerformed ?? ""),
            "ds_required": .bool(record.dsRequired),
        ]
    }

    /// The status a history shows: an active notification past its expiry is EXPIRED.
    public static func status(of record: NotificationRecord, now: Int64) -> String {
        record.status == "ACTIVE" && record.expiresAt <= now ? "EXPIRED" : record.status
    }

    /// A history item: `status` UPDATED / EXPIRED / DISCARDED (DISMISSED is
    /// the SDK's too; FlowHost has no dismissal yet), `action_performed`, `update_ts`, …
    public static func historyItem(_ record: NotificationRecord, now: Int64) -> JSON {
        let status = status(of: record, now: now)
        return [
            "notification_uuid": .string(record.uuid), "body": (try? JSON.parse(record.body)) ?? .array(), "status": .string(status),
            "action_performed": .string(record.actionPerformed ?? ""), "create_ts": .string(timestamp(record.createdAt)),
            "update_ts": .string(record.updatedAt.map(timestamp) ?? ""), "expiry_timestamp": .string(timestamp(record.expiresAt)),
            "signing_status": "",
        ]
    }

    /// The SDK's timestamp text: `yyyy-MM-dd'T'HH:mm:ss'UTC'`.
    public static func timestamp(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var text = [CChar](repeating: 0, count: 32)
        let count = strftime(&text, text.count, "%Y-%m-%dT%H:%M:%SUTC", &parts)
        return String(utf8: text[0..<count].map { UInt8(bitPattern: $0) })
    }
}
