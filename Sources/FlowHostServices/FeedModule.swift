import FlowHostCore
import FlowHostStore
import FlowJSON

#if canImport(Glibc)
import Glibc
#endif

/// The change feed over the store: events in the `feed` module's table, a
/// wake-up file beside the store watched with inotify.
final class StoreChangeFeed: ChangeFeed {
    let store: any FlowStore
    let wake: any FeedSignal
    /// Events are kept a day: a host that was down longer starts from now anyway.
    static let retentionSeconds: Int64 = 86_400

    init(store: any FlowStore, wake: any FeedSignal) {
        self.store = store
        self.wake = wake
    }

    func publish(topic: String, payload: JSON) throws {
        let now = Int64(time(nil))
        try store.write(durability: .relaxed) { tx in
            let sequence = try tx.appendFeedEvent(topic: topic, payload: payload.serialized(), at: now)
            if sequence % 1024 == 0 { try tx.pruneFeed(before: now - Self.retentionSeconds) }
        }
        wake.ring()
    }

    func latestSequence() throws -> Int64 { try store.read { try $0.latestFeedSequence() } }

    func events(after sequence: Int64, topics: Set<String>, limit: Int) throws -> [FeedEvent] {
        try store.read { try $0.feedEvents(after: sequence, topics: topics.sorted(), limit: limit) }.map {
            FeedEvent(sequence: $0.sequence, topic: $0.topic, payload: (try? JSON.parse($0.payload)) ?? .object())
        }
    }

    var wakeDescriptor: Int32? { wake.listen() }
    func drainWake() { wake.drain() }
}
