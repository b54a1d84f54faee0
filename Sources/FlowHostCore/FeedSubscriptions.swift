import FlowHostVocabulary
import FlowJSON
import JSONRPC
import Logging

/// Who on this host follows which change-feed topic, and how far the host
/// has read. A subscription starts when made and gets every later event
/// once, in order, whichever host published it. Host topics are acted on
/// only as the store bears them out (`ChangeFeed.confirm`).
///
/// A class, so that delivery may subscribe and unsubscribe while a poll is
/// running. Loop thread only, like the engine that owns it.
final class FeedSubscriptions {
    static let maxPayloadBytes = 65_536
    private static let batchSize = 256

    /// The store's change feed, set by the services module; nil: no store.
    var feed: (any ChangeFeed)?
    private let logger: Logger
    private var subscribers: [String: [LoadedPlugin]] = [:]
    /// `subscribers`' keys, kept as they change: every poll asks the feed
    /// for these, and a host polls at every event it is woken for.
    private var topics: Set<String> = []
    /// Topics the host itself follows (its session's end).
    private var hostInterests: Set<String> = []
    /// The last sequence read; nil while nothing is subscribed.
    private var cursor: Int64?

    init(logger: Logger) { self.logger = logger }

    var isEmpty: Bool { subscribers.isEmpty }

    /// What the loop should wait on: the feed's wake-up while anything is
    /// subscribed, and after that whatever the feed still holds for a while
    /// (a relay between the machine's hosts, which others may read through).
    var wakeDescriptor: Int32? { subscribers.isEmpty ? feed?.idleWakeDescriptor : feed?.wakeDescriptor }

    enum Subscribed { case refused, subscribed, startedWatching }

    /// `plugin` (nil: the host) follows `topic` from now on, or from
    /// `position` (the feed's position as read in a transaction the caller
    /// just committed: what it wrote is already behind that position).
    /// `.startedWatching`: the first subscription, the caller starts the poll.
    func subscribe(_ topic: String, plugin: LoadedPlugin?, from position: Int64? = nil) -> Subscribed {
        guard let feed else { return .refused }
        var started = false
        if cursor == nil {
            // Watch for wake-ups before the cursor is read and before the
            // subscribe call is answered: a publisher that acts on the answer
            // must find the watch in place, or its ring is lost until the poll.
            _ = feed.wakeDescriptor
            do { cursor = try position ?? feed.latestSequence() } catch {
                logger.error("change feed: \(error)")
                // What the watch above joined is let go in time.
                feed.follow([], after: 0)
                return .refused
            }
            started = true
        }
        let isNewTopic = subscribers[topic] == nil
        var list = subscribers[topic] ?? []
        if let plugin, !list.contains(where: { $0 === plugin }) { list.append(plugin) }
        if plugin == nil { hostInterests.insert(topic) }
        subscribers[topic] = list
        if isNewTopic { topics.insert(topic) }
        // Before the subscribe call is answered, as the watch above.
        if isNewTopic, let cursor { feed.follow(topics, after: cursor) }
        return started ? .startedWatching : .subscribed
    }

    /// Stops `plugin`'s interest in `topic` (nil: the host's own). With no
    /// subscription left the host stops reading the feed, and a later
    /// subscription starts afresh; its loop goes back to a plain blocking
    /// read once the feed holds nothing (`idleWakeDescriptor`).
    func unsubscribe(_ topic: String, plugin: LoadedPlugin?) {
        guard var list = subscribers[topic] else { return }
        // A flow's unsubscribe never ends the host's own interest (its
        // session's end), nor another flow's.
        if let plugin { list.removeAll { $0 === plugin } } else { hostInterests.remove(topic) }
        subscribers[topic] = list.isEmpty && !hostInterests.contains(topic) ? nil : list
        if subscribers[topic] == nil {
            topics.remove(topic)
            feed?.follow(topics, after: cursor ?? 0)
        }
        if subscribers.isEmpty { cursor = nil }
    }

    /// The flows that follow `topic` now.
    func plugins(following topic: String) -> [LoadedPlugin] { subscribers[topic] ?? [] }

    /// Why `plugin` may not use `topic` (see `FeedTopic`), logged; nil when it may.
    func refusal(_ topic: String, plugin: LoadedPlugin, publishing: Bool) -> String? {
        guard let reason = FeedTopic.refusal(flow: plugin.name, reads: plugin.manifest.reads, topic: topic, publishing: publishing) else {
            return nil
        }
        logger.warning("flow \(plugin.name): \(publishing ? "publish" : "subscribe") refused: \(reason)")
        return reason
    }

    func publish(_ topic: String, payload: JSON) throws(FlowHostError) {
        guard let feed else { throw FlowHostError(.internalError, message: "no change feed: the host has no store") }
        guard payload.kind == .object, payload.serialized().utf8.count <= Self.maxPayloadBytes else {
            throw FlowHostError.invalidParams(field: "payload", reason: "must be an object of at most \(Self.maxPayloadBytes) bytes")
        }
        do { try feed.publish(topic: topic, payload: payload) } catch {
            logger.error("change feed: publishing failed: \(error)")
            throw FlowHostError.internalError
        }
    }

    /// The loop saw the wake-up descriptor readable.
    func drainWake() { feed?.drainWake() }

    /// Hands every event after the cursor to `deliver`, oldest first. The
    /// cursor moves only past events read: one committed between two reads
    /// is picked up next time, never skipped.
    func poll(as viewer: () -> FeedViewer, _ deliver: (FeedEvent) -> Void) {
        guard let feed, var position = cursor, !subscribers.isEmpty else { return }
        while true {
            let batch: [FeedEvent]
            do { batch = try feed.events(after: position, topics: topics, limit: Self.batchSize) } catch {
                logger.error("change feed: reading failed: \(error)")
                return
            }
            for stored in batch {
                // A delivery that ended the last subscription ended the
                // watch: the next subscription starts afresh from its own
                // position, not from where this poll stopped.
                guard !subscribers.isEmpty else { return }
                position = stored.sequence
                cursor = position
                // Another user's host topic is passed over before the store is
                // asked to bear it out: only the hosts it concerns query.
                if FeedTopic.isHostTopic(stored.topic), !feed.concerns(stored, viewer()) { continue }
                // A host topic's event the store does not bear out (written
                // around the host's domains) is dropped, and flows get the
                // store's payload, not the event's.
                guard let event = FeedTopic.isHostTopic(stored.topic) ? feed.confirm(stored) : stored else {
                    logger.warning("change feed: event \(stored.sequence) on \(stored.topic) does not match the store; dropped")
                    continue
                }
                // Another user's session or notification is not this host's
                // business (read as its session stands at that event).
                if FeedTopic.isHostTopic(event.topic), !feed.concerns(event, viewer()) { continue }
                deliver(event)
            }
            if batch.count < Self.batchSize { break }
        }
    }
}
