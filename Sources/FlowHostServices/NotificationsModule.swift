import FlowHostCore
import FlowHostNotifications
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

#if canImport(Glibc)
import Glibc
import FlowHostServiceTypes
#endif

/// Notifications for flows: create, list, check and answer, in the SDK's
/// shapes. The step-up and device-activation flows build on these.
enum NotificationsModule {
    static func register(_ notifications: NotificationService, madeHere: NotificationsMadeHere, in engine: HostEngine) {
        offerReading(engine, Services.NotificationsCreate.self) { _, p in
            let actions = try p.objects("actions", members: ["label", "action", "authlevel"]).map { item throws(FlowHostError) in
                NotificationAction(label: try item.string("label"), action: try item.string("action"), authLevel: try item.optionalString("authlevel") ?? "0")
            }
            do {
                let uuid = try notifications.create(
                    userID: try p.string("userID"), subject: try p.string("subject"), message: try p.string("message"), actions: actions,
                    expiresInSeconds: Int64(try p.optionalInt("expiresInSeconds") ?? 0), kind: try p.optionalString("kind") ?? "message",
                    context: p.opaque("context"))
                madeHere.add(uuid)
                return Services.NotificationsCreateOutcome(uuid: uuid)
            } catch let error as NotificationError {
                throw FlowHostError.invalidParams(field: "notification", reason: error.description)
            } catch let refused as ApprovalRefused {
                throw FlowHostError(.tooManyRequests, message: "Too many approval requests: try again later",
                    data: ["reason": .string(refused.reason), "retryAfterSeconds": .int(Int(refused.retryAfterSeconds))])
            }
        }

        offerReading(engine, Services.NotificationsList.self) { _, p in
            let page = try Self.page(p)
            let (items, total) = try notifications.active(
                userID: try p.string("userID"), startIndex: page.startIndex, recordCount: page.recordCount, created: page.created)
            return Services.NotificationsListOutcome(
                notifications: .array(items.map(NotificationShapes.item)), start: String(page.startIndex), count: String(items.count),
                total: String(total))
        }

        offer(engine, Services.NotificationsCheck.self) { _, call in
            let (outcome, action) = try notifications.check(userID: call.userID, uuid: call.uuid, action: call.action)
            switch outcome {
            case .updated: return .answerable(authlevel: action?.authLevel ?? "0")
            case .unknown: return .unknown
            case .expired: return .expired
            case .actionNotOffered: return .actionNotOffered
            case .alreadyAnswered: return .alreadyAnswered
            }
        }

        offerReading(engine, Services.NotificationsHistory.self) { _, p in
            let now = CredentialClock.now()
            let page = try Self.page(p)
            let items = try notifications.history(
                userID: try p.string("userID"), startIndex: page.startIndex, recordCount: page.recordCount, created: page.created,
                filter: try Self.historyFilter(p))
            return Services.NotificationsHistoryOutcome(history: .array(items.map { NotificationShapes.historyItem($0, now: now) }))
        }

        offer(engine, Services.NotificationsWithdraw.self) { _, call in
            try notifications.withdraw(call.uuid)
            return Services.NotificationsWithdrawOutcome()
        }

        offer(engine, Services.NotificationsAnswer.self) { _, call in
            switch try notifications.answer(userID: call.userID, uuid: call.uuid, action: call.action, deviceID: call.deviceID) {
            case .updated(let record): .updated(kind: record.kind)
            case .unknown: .unknown
            case .expired: .expired
            case .actionNotOffered: .actionNotOffered
            case .alreadyAnswered: .alreadyAnswered
            }
        }
    }
}

/// Seconds since the epoch, for shapes that show times.
enum CredentialClock {
    static func now() -> Int64 { Int64(time(nil)) }
}
