import CFlowHostABI
import FlowJSON
import JSONRPC

/// The change feed on this host (see `FeedSubscriptions`): delivery is
/// prompt through the wake-up descriptor, and a poll every two seconds
/// (only while something is subscribed) is the safety net.
extension FeedSubscriptions {
    /// The safety net's period: inotify wakes the host at once; this poll
    /// only catches what a lost wake-up would miss (another machine's
    /// writer on a shared filesystem, say).
    static let pollMilliseconds: UInt64 = 2000

    /// Subscribes; the first subscription starts the safety-net poll on
    /// `scheduler`. False: refused.
    func subscribe(_ topic: String, plugin: LoadedPlugin?, from position: Int64? = nil, polling scheduler: Scheduler) -> Bool {
        switch subscribe(topic, plugin: plugin, from: position) {
        case .refused: return false
        case .subscribed: return true
        case .startedWatching:
            scheduler.schedule(.feedPoll, inMilliseconds: Self.pollMilliseconds)
            return true
        }
    }
}

extension HostEngine {
    /// The store's change feed (set by the services module).
    public var feed: (any ChangeFeed)? {
        get { subscriptions.feed }
        set { subscriptions.feed = newValue }
    }

    /// FLOWHOST_ERR_NOT_PERMITTED when `plugin` may not use `topic`; nil when it may.
    func feedRefusal(_ topic: String, plugin: LoadedPlugin, publishing: Bool) -> Int32? {
        subscriptions.refusal(topic, plugin: plugin, publishing: publishing) == nil ? nil : FLOWHOST_ERR_NOT_PERMITTED
    }

    /// The loop saw the wake-up descriptor readable.
    public func woke() {
        subscriptions.drainWake()
        output.holding {
            pollFeed(scheduleNext: false)
            runDeferred()
        }
    }

    /// Delivers every event after the cursor to its subscribers.
    func pollFeed(scheduleNext: Bool) {
        if scheduleNext { scheduler.schedule(.feedPoll, inMilliseconds: FeedSubscriptions.pollMilliseconds) }
        subscriptions.poll(as: { FeedViewer(sessionUserID: session.current?.userID) }) { event in
            if event.topic == SessionRuntime.endedTopic, let current = session.current,
                event.payload["sessionIDs"]?.elements.contains(where: { $0.stringValue == current.sessionID }) == true
            {
                session.end(reason: event.payload["reason"]?.stringValue ?? "ended", inStore: false)
            }
            for plugin in subscriptions.plugins(following: event.topic) {
                // In the context of the call the flow serves, if any: what it
                // starts on hearing this (a challenge, a call) belongs to it.
                router.withCall(router.servedCall(by: plugin)) { plugin.notify(event.topic, event.payload) }
            }
        }
    }
}
