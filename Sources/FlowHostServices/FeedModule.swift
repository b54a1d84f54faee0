import FlowHostCore
import FlowHostNotifications
import FlowHostSessions
import FlowHostStore
import FlowJSON

#if canImport(Glibc)
import Glibc
#endif

/// The change feed over the store: events in the `feed` module's table, a
/// wake-up file beside the store watched with inotify (SQLite), or the
/// machine's one listener (`FeedRelay`, PostgreSQL).
final class StoreChangeFeed: ChangeFeed {
    let store: any FlowStore
    let wake: any FeedSignal
    /// How long events are kept (`retention.feedHours`): a host that was
    /// down longer starts from now anyway.
    let retentionSeconds: Int64

    /// The notifications this host's flows created.
    let madeHere: NotificationsMadeHere

    /// `wake` when it is the machine's relay, cast once: the loop asks at
    /// every event it is woken for.
    let relay: (any FeedRelaying)?

    init(store: any FlowStore, wake: any FeedSignal, retention: RetentionSettings, madeHere: NotificationsMadeHere) {
        self.store = store
        self.wake = wake
        relay = wake as? any FeedRelaying
        self.madeHere = madeHere
        retentionSeconds = retention.feedHours * 3600
    }

    func publish(topic: String, payload: JSON) throws {
        let now = Int64(time(nil))
        let sequence = try store.appendFeedEventAlone(topic: topic, payload: payload.serialized(), at: now, durability: .relaxed)
        wake.ring()
        // In a transaction of its own: an append holds the feed's lock
        // shared until it ends, and a reader waits for it. The event is
        // published whatever becomes of the prune, which the next one and
        // the retention sweep make again.
        if sequence % 1024 == 0 { _ = try? store.write(durability: .relaxed) { try $0.pruneFeed(before: now - retentionSeconds) } }
    }

    func latestSequence() throws -> Int64 { try store.feedSubscriptionStart() }

    /// Relayed by the machine's listener when it can vouch for them (no
    /// server query for an event this host was woken for), else read here.
    func events(after sequence: Int64, topics: Set<String>, limit: Int) throws -> [FeedEvent] {
        let stored: [StoredFeedEvent]
        if let relay {
            stored = try relay.events(after: sequence, topics: topics, limit: limit)
                ?? relay.readStore(after: sequence, topics: topics, limit: limit)
        } else {
            stored = try store.readFeed(after: sequence, topics: topics.sorted(), limit: limit).events
        }
        return stored.map { FeedEvent(sequence: $0.sequence, topic: $0.topic, payload: (try? JSON.parse($0.payload)) ?? .object()) }
    }

    var wakeDescriptor: Int32? { wake.listen() }
    var idleWakeDescriptor: Int32? { relay?.idleDescriptor }
    func drainWake() { wake.drain() }
    func follow(_ topics: Set<String>, after cursor: Int64) { relay?.follow(topics: topics, after: cursor) }

    func confirm(_ event: FeedEvent) -> FeedEvent? {
        let payload: JSON?
        do { payload = try store.read { tx in try Self.storeView(of: event, tx) } } catch { return nil }
        return payload.map { FeedEvent(sequence: event.sequence, topic: event.topic, payload: $0) }
    }

    /// Every host topic's payload names its user (`storeView`): the
    /// session's user reads it, and the host that created a notification
    /// hears what became of it.
    func concerns(_ event: FeedEvent, _ viewer: FeedViewer) -> Bool {
        if let user = event.payload["userID"]?.stringValue, user == viewer.sessionUserID { return true }
        guard event.topic == NotificationService.createdTopic || event.topic == NotificationService.updatedTopic,
            let uuid = event.payload["uuid"]?.stringValue
        else { return false }
        return madeHere.contains(uuid)
    }

    /// What the store says of the event's subject, in the topic's shape; nil
    /// for an unknown host topic or a subject the store does not bear out.
    private static func storeView(of event: FeedEvent, _ tx: any StoreReader) throws -> JSON? {
        switch event.topic {
        case SessionLedger.endedTopic:
            let claimed = event.payload["sessionIDs"]?.elements.compactMap(\.stringValue) ?? []
            let ended = try claimed.prefix(256).compactMap { try tx.session($0) }.filter { $0.endedAt != nil }
            guard let first = ended.first else { return nil }
            let sameUser = ended.filter { $0.userID == first.userID }
            return [
                "userID": .string(first.userID), "sessionIDs": .array(sameUser.map { .string($0.sessionID) }),
                "reason": .string(first.endReason ?? "ended"),
            ]
        case NotificationService.createdTopic, NotificationService.updatedTopic:
            guard let uuid = event.payload["uuid"]?.stringValue, let record = try tx.notification(uuid) else { return nil }
            let view: JSON = ["userID": .string(record.userID), "uuid": .string(record.uuid), "kind": .string(record.kind)]
            if event.topic == NotificationService.updatedTopic {
                guard record.status == "UPDATED", let action = record.actionPerformed else { return nil }
                view["action"] = .string(action)
            }
            return view
        default:
            return nil
        }
    }
}
