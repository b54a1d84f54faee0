import FlowHostCore
import FlowHostNotifications
import FlowHostStore
import FlowJSON

/// Notifications for flows: create, list, check and answer, in the SDK's
/// shapes. The step-up and device-activation flows build on these.
enum NotificationsModule {
    static func register(_ notifications: NotificationService, in engine: HostEngine) {
        offer(
            engine, "notifications.create",
            [
                string("userID", userID: true), string("subject"), string("message"), ParamSpec(name: "actions", type: .array),
                integer("expiresInSeconds"), string("kind", required: false), ParamSpec(name: "context", type: .object, required: false),
            ]
        ) { _, p in
            let actions = try p.json["actions"]!.elements.map { item in
                guard let label = item["label"]?.stringValue, let action = item["action"]?.stringValue else {
                    throw ServiceError.invalidParams(field: "actions", reason: "each needs label and action")
                }
                return NotificationAction(label: label, action: action, authLevel: item["authlevel"]?.stringValue ?? "0")
            }
            do {
                let uuid = try notifications.create(
                    userID: try p.string("userID"), subject: try p.string("subject"), message: try p.string("message"), actions: actions,
                    expiresInSeconds: Int64(try p.optionalInt("expiresInSeconds") ?? 0), kind: try p.optionalString("kind") ?? "message",
                    context: p.json["context"])
                return ["uuid": .string(uuid)]
            } catch let error as NotificationError {
                throw ServiceError.invalidParams(field: "notification", reason: error.description)
            }
        }

        offer(engine, "notifications.list", [string("userID", userID: true), integer("startIndex", required: false), integer("recordCount", required: false)]) { _, p in
            let (items, total) = try notifications.active(
                userID: try p.string("userID"), startIndex: try p.optionalInt("startIndex") ?? 1, recordCount: try p.optionalInt("recordCount") ?? 0)
            return [
                "notifications": .array(items.map(NotificationShapes.item)), "start": .string(String(try p.optionalInt("startIndex") ?? 1)),
                "count": .string(String(items.count)), "total": .string(String(total)),
            ]
        }

        offer(engine, "notifications.answer", [string("userID", userID: true), string("uuid"), string("action"), string("deviceID")]) { _, p in
            switch try notifications.answer(
                userID: try p.string("userID"), uuid: try p.string("uuid"), action: try p.string("action"), deviceID: try p.string("deviceID"))
            {
            case .updated(let record): return ["outcome": "updated", "kind": .string(record.kind)]
            case .unknown: return ["outcome": "unknown"]
            case .expired: return ["outcome": "expired"]
            case .actionNotOffered: return ["outcome": "actionNotOffered"]
            case .alreadyAnswered: return ["outcome": "alreadyAnswered"]
            }
        }
    }
}
