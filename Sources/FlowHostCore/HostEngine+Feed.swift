import CFlowHostABI
import FlowJSON
import JSONRPC

/// The change feed on this host: subscriptions start when made and get
/// every later event once, in order, on the loop thread, whichever host
/// published it. A wake-up descriptor makes delivery prompt; a poll every
/// two seconds (only while something is subscribed) is the safety net.
extension HostEngine {
    /// The safety net's period: inotify wakes the host at once; this poll
    /// only catches what a lost wake-up would miss (another machine's
    /// writer on a shared filesystem, say).
    static let feedPollMilliseconds: UInt64 = 2000
    static let maxFeedPayloadBytes = 65_536

    func subscribe(_ topic: String, plugin: LoadedPlugin?) -> Bool {
        guard let feed else { return false }
        if feedCursor == nil {
            // Watch for wake-ups before the cursor is read and before the
            // subscribe call is answered: a publisher that acts on the answer
            // must find the watch in place, or its ring is lost until the poll.
            _ = feed.wakeDescriptor
            do { feedCursor = try feed.latestSequence() } catch {
                logger.error("change feed: \(error)")
                return false
            }
            scheduler.schedule(.feedPoll, inMilliseconds: Self.feedPollMilliseconds)
        }
        var subscribers = subscriptions[topic] ?? []
        if let plugin, !subscribers.contains(where: { $0 === plugin }) { subscribers.append(plugin) }
        if plugin == nil { hostInterests.insert(topic) }
        subscriptions[topic] = subscribers
        return true
    }

    /// The host's own interest (its session's end), with no plugin to tell.
    func subscribeHost(to topic: String) { _ = subscribe(topic, plugin: nil) }

    /// Stops `plugin`'s interest in `topic` (nil: the host's own). With no
    /// subscription left the host stops watching the feed: its loop goes
    /// back to a plain blocking read, and a later subscription starts afresh.
    func unsubscribe(_ topic: String, plugin: LoadedPlugin?) {
        guard var subscribers = subscriptions[topic] else { return }
        // A flow's unsubscribe never ends the host's own interest (its
        // session's end), nor another flow's.
        if let plugin { subscribers.removeAll { $0 === plugin } } else { hostInterests.remove(topic) }
        if subscribers.isEmpty && !hostInterests.contains(topic) {
            subscriptions[topic] = nil
        } else {
            subscriptions[topic] = subscribers
        }
        if subscriptions.isEmpty { feedCursor = nil }
    }

    /// FLOWHOST_ERR_NOT_PERMITTED, logged with its reason, when `plugin`
    /// may not use `topic` (see `FeedTopic`); nil when it may.
    func feedRefusal(_ topic: String, plugin: LoadedPlugin, publishing: Bool) -> Int32? {
        guard let reason = FeedTopic.refusal(flow: plugin.name, reads: plugin.manifest.reads, topic: topic, publishing: publishing) else {
            return nil
        }
        logger.warning("flow \(plugin.name): \(publishing ? "publish" : "subscribe") refused: \(reason)")
        return FLOWHOST_ERR_NOT_PERMITTED
    }

    func publish(_ topic: String, payload: JSON) throws(RPCError) {
        guard let feed else { throw RPCError(.internalError, message: "no change feed: the host has no store") }
        guard payload.kind == .object, payload.serialized().utf8.count <= Self.maxFeedPayloadBytes else {
            throw RPCError.invalidParams(field: "payload", reason: "must be an object of at most \(Self.maxFeedPayloadBytes) bytes")
        }
        do { try feed.publish(topic: topic, payload: payload) } catch {
            logger.error("change feed: publishing failed: \(error)")
            throw RPCError.internalError
        }
    }

    /// The wake-up descriptor, for the loop to wait on.
    public var feedWakeDescriptor: Int32? { subscriptions.isEmpty ? nil : feed?.wakeDescriptor }

    /// The loop saw the wake-up descriptor readable.
    public func feedWoke() {
        feed?.drainWake()
        holdDepth += 1
        pollFeed(scheduleNext: false)
        runDeferred()
        holdDepth -= 1
        if holdDepth == 0 { releaseHeldFrames() }
    }

    /// Delivers every event after the cursor to its subscribers.
    func pollFeed(scheduleNext: Bool) {
        if scheduleNext { scheduler.schedule(.feedPoll, inMilliseconds: Self.feedPollMilliseconds) }
        guard let feed, var cursor = feedCursor, !subscriptions.isEmpty else { return }
        let topics = Set(subscriptions.keys)
        while true {
            let batch: [FeedEvent]
            do { batch = try feed.events(after: cursor, topics: topics, limit: 256) } catch {
                logger.error("change feed: reading failed: \(error)")
                return
            }
            for event in batch {
                cursor = event.sequence
                feedCursor = cursor
                deliver(event)
            }
            if batch.count < 256 { break }
        }
        // The cursor moves only past events read: one committed between two
        // reads is picked up next time, never skipped.
    }

    private func deliver(_ stored: FeedEvent) {
        // A host topic is acted on only as the store has it now: an event
        // the store does not bear out (written around the host's domains)
        // is dropped, and flows get the store's payload, not the event's.
        guard let event = FeedTopic.isHostTopic(stored.topic) ? feed?.confirm(stored) : stored else {
            logger.warning("change feed: event \(stored.sequence) on \(stored.topic) does not match the store; dropped")
            return
        }
        if event.topic == Self.sessionsEndedTopic, let current = hostSession.current,
            event.payload["sessionIDs"]?.elements.contains(where: { $0.stringValue == current.sessionID }) == true
        {
            endSession(reason: event.payload["reason"]?.stringValue ?? "ended", inStore: false)
        }
        for plugin in subscriptions[event.topic] ?? [] {
            // In the context of the call the flow serves, if any: what it
            // starts on hearing this (a challenge, a call) belongs to it.
            withCall(servedCall(by: plugin)) { plugin.notify(event.topic, event.payload) }
        }
    }
}
