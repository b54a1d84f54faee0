import FlowHostCore
import FlowHostNotifications
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

#if canImport(Glibc)
import Glibc
#endif

/// Notifications for flows: create, list, check and answer, in the SDK's
/// shapes. The step-up and device-activation flows build on these.
enum NotificationsModule {
    static func register(_ notifications: NotificationService, in engine: HostEngine) {
        // The engine owns the services registered here: capturing it strongly would keep it alive forever.
        unowned let engine = engine
        offer(
            engine, "notifications.create",
            [
                string("userID", userID: true), string("subject"), string("message"), ParamSpec(name: "actions", type: .array),
                integer("expiresInSeconds"), string("kind", required: false), ParamSpec(name: "context", type: .object, required: false),
            ]
        ) { _, p in
            let actions = try p.objects("actions", members: ["label", "action", "authlevel"]).map { item throws(FlowHostError) in
                NotificationAction(label: try item.string("label"), action: try item.string("action"), authLevel: try item.optionalString("authlevel") ?? "0")
            }
            do {
                let uuid = try notifications.create(
                    userID: try p.string("userID"), subject: try p.string("subject"), message: try p.string("message"), actions: actions,
                    expiresInSeconds: Int64(try p.optionalInt("expiresInSeconds") ?? 0), kind: try p.optionalString("kind") ?? "message",
                    context: p.opaque("context"))
                return ["uuid": .string(uuid)]
            } catch let error as NotificationError {
                throw FlowHostError.invalidParams(field: "notification", reason: error.description)
            } catch let refused as ApprovalRefused {
                throw FlowHostError(.tooManyRequests, message: "Too many approval requests: try again later",
                    data: ["reason": .string(refused.reason), "retryAfterSeconds": .int(Int(refused.retryAfterSeconds))])
            }
        }

        offer(engine, "notifications.list", [string("userID", userID: true)] + Self.pageParams) { _, p in
            let page = try Self.page(p)
            let (items, total) = try notifications.active(
                userID: try p.string("userID"), startIndex: page.startIndex, recordCount: page.recordCount, created: page.created)
            return [
                "notifications": .array(items.map(NotificationShapes.item)), "start": .string(String(page.startIndex)),
                "count": .string(String(items.count)), "total": .string(String(total)),
            ]
        }

        offer(engine, "notifications.check", [string("userID", userID: true), string("uuid"), string("action")]) { _, p in
            let (outcome, action) = try notifications.check(userID: try p.string("userID"), uuid: try p.string("uuid"), action: try p.string("action"))
            switch outcome {
            case .updated: return ["outcome": "answerable", "authlevel": .string(action?.authLevel ?? "0")]
            default: return ["outcome": .string(name(outcome))]
            }
        }

        offer(
            engine, "notifications.history", [string("userID", userID: true)] + Self.pageParams + Self.historyFilterParams
        ) { _, p in
            let now = CredentialClock.now()
            let page = try Self.page(p)
            let items = try notifications.history(
                userID: try p.string("userID"), startIndex: page.startIndex, recordCount: page.recordCount, created: page.created,
                filter: try Self.historyFilter(p))
            return ["history": .array(items.map { NotificationShapes.historyItem($0, now: now) })]
        }

        offer(engine, "notifications.withdraw", [string("uuid")]) { _, p in
            try notifications.withdraw(try p.string("uuid"))
            return .object()
        }

        offer(engine, "notifications.answer", [string("userID", userID: true), string("uuid"), string("action"), string("deviceID")]) { _, p in
            switch try notifications.answer(
                userID: try p.string("userID"), uuid: try p.string("uuid"), action: try p.string("action"), deviceID: try p.string("deviceID"))
            {
            case .updated(let record): return ["outcome": "updated", "kind": .string(record.kind)]
            case let other: return ["outcome": .string(name(other))]
            }
        }
    }

    static func name(_ outcome: NotificationService.AnswerOutcome) -> String {
        switch outcome {
        case .updated: "updated"
        case .unknown: "unknown"
        case .expired: "expired"
        case .actionNotOffered: "actionNotOffered"
        case .alreadyAnswered: "alreadyAnswered"
        }
    }
}

/// Seconds since the epoch, for shapes that show times.
enum CredentialClock {
    static func now() -> Int64 { Int64(time(nil)) }
}
