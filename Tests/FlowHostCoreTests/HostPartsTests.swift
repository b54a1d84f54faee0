import FlowJSON
@testable import FlowHostCore
import JSONRPC
import Logging
import Testing

private let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

/// The output, the client's hello, the name table and the feed's
/// subscriptions, each alone.
@Suite struct FrameOutputTests {
    @Test func framesCausedWhileAReplyIsPreparedFollowIt() throws {
        let sink = MemorySink()
        let output = FrameOutput(sink: sink, logger: quiet)
        output.holding {
            output.send(.event(name: "first", params: .object()))
            output.holding { output.send(.request(id: "fh-1", method: "second", params: .object())) }
            output.write(.result(id: 1, result: .object()))
        }
        output.send(.event(name: "after", params: .object()))
        try output.flush()
        let methods = sink.lines.map { try? JSON.parse($0) }.map { $0?["method"]?.stringValue ?? "reply" }
        #expect(methods == ["reply", "first", "second", "after"])
    }

    @Test func aFailedWriteClosesTheOutput() {
        final class BrokenSink: FrameSink {
            struct Gone: Error {}
            func write(_ bytes: UnsafeRawBufferPointer) throws { throw Gone() }
        }
        let output = FrameOutput(sink: BrokenSink(), logger: quiet)
        output.write(.result(id: 1, result: .object()))
        #expect(!output.isClosed, "nothing is written before the flush")
        output.flushOrClose()
        #expect(output.isClosed)
    }
}

@Suite struct ClientHelloTests {
    func params(device: JSON = .object(), version: String = "1.1") -> JSON {
        ["protocolVersion": .string(version), "clientInfo": ["name": "t", "version": "1"], "device": device]
    }

    @Test func theDeviceIsCompletedWithTheHostsDefaults() throws {
        let hello = try ClientHello(params())
        #expect(hello.device["deviceID"]?.stringValue?.utf8.count == 32)
        #expect(hello.device["keyCustody"]?.stringValue == "host")
        #expect(hello.device["ldaCapabilities"]?.elements.isEmpty == true)
        #expect(hello.infoForFlows["clientInfo"]?["name"]?.stringValue == "t")
        #expect(hello.infoForFlows["protocolVersion"] == nil, "flows read the device and the client, nothing else")
    }

    @Test func badHellosAreRefusedNamingTheField() {
        func field(_ p: JSON) -> String? {
            do { _ = try ClientHello(p); return nil } catch { return error.data?["field"]?.stringValue }
        }
        #expect(field(params(version: "1.0")) == "protocolVersion")
        #expect(field(params(device: ["colour": "red"])) == "device.colour")
        #expect(field(params(device: ["keyCustody": "cloud"])) == "device.keyCustody")
        #expect(field(params(device: ["ldaCapabilities": [0]])) == "device.ldaCapabilities[0]")
        #expect(field(params(device: ["deviceName": "two\nlines"])) == "device.deviceName")
    }
}

@Suite struct NameTableTests {
    let h = Harness(ProbeFlow.self, TwinFlow.self)

    @Test func aTakenNameRefusesTheNewcomerWhole() throws {
        let table = NameTable()
        table.addHostService("records.get", .host(params: nil) { _, _ in nil })
        let probe = h.engine.plugins[0]
        #expect(table.conflict(of: probe, installed: []) == nil)
        table.add(probe)
        #expect(table.conflict(of: probe, installed: [probe])?.hasPrefix("flow name probe is already taken") == true)
        #expect(table.conflict(of: h.engine.plugins[1], installed: [probe]) == nil, "a shared answer method is no conflict")
        guard case .failure(let error) = table.checkedService("nothing.here", params: .object(), from: nil) else {
            Issue.record("an unknown service was let through")
            return
        }
        #expect(error.code == .methodNotFound)
    }
}

extension NameTableTests {
    /// Flows sharing an answer method agree on its contract; each may
    /// describe it in its own words (the host holds no descriptions).
    @Test func flowsSharingAnAnswerMethodMayDescribeItDifferently() {
        let base = MethodSpec(name: "setSecret", params: [ParamSpec(name: "secret", type: .string, description: "one")], answers: ["getSecret"])
        var described = base
        described.summary = "said otherwise"
        described.params[0].description = "another"
        #expect(base.isCompatible(with: described))
        var retyped = base
        retyped.params[0].type = .integer
        #expect(!base.isCompatible(with: retyped))
        var optional = base
        optional.params[0].required = false
        #expect(!base.isCompatible(with: optional))
        var otherChallenge = base
        otherChallenge.answers = ["getOther"]
        #expect(!base.isCompatible(with: otherChallenge))
    }
}

@Suite struct FeedSubscriptionsTests {
    /// An in-memory feed: only the subscriptions' bookkeeping is under test.
    final class ListFeed: ChangeFeed {
        var stored: [FeedEvent] = []
        func publish(topic: String, payload: JSON) throws {
            stored.append(FeedEvent(sequence: Int64(stored.count + 1), topic: topic, payload: payload))
        }
        func latestSequence() throws -> Int64 { Int64(stored.count) }
        func events(after sequence: Int64, topics: Set<String>, limit: Int) throws -> [FeedEvent] {
            Array(stored.filter { $0.sequence > sequence && topics.contains($0.topic) }.prefix(limit))
        }
        var wakeDescriptor: Int32? { nil }
        func drainWake() {}
        func confirm(_ event: FeedEvent) -> FeedEvent? { event.payload["forged"] == nil ? event : nil }
        func concerns(_ event: FeedEvent, _ viewer: FeedViewer) -> Bool { event.payload["userID"]?.stringValue == viewer.sessionUserID }
    }

    let h = Harness(ProbeFlow.self)

    @Test func subscriptionsSeeOnlyLaterEventsOnceAndForgedHostEventsNever() throws {
        let feed = ListFeed()
        let subscriptions = FeedSubscriptions(logger: quiet)
        #expect(subscriptions.subscribe("probe.x", plugin: nil) == .refused, "no feed, no subscription")
        subscriptions.feed = feed
        try feed.publish(topic: "probe.x", payload: ["n": 0])
        #expect(subscriptions.subscribe("probe.x", plugin: h.engine.plugins[0]) == .startedWatching)
        #expect(subscriptions.subscribe("sessions.ended", plugin: nil) == .subscribed)
        try feed.publish(topic: "probe.x", payload: ["n": 1])
        try feed.publish(topic: "sessions.ended", payload: ["forged": true, "userID": "alice"])
        try feed.publish(topic: "sessions.ended", payload: ["userID": "alice", "sessionIDs": []])
        var seen: [String] = []
        let alice = FeedViewer(sessionUserID: "alice")
        subscriptions.poll(as: { alice }) { seen.append("\($0.topic) \($0.payload.serialized())") }
        subscriptions.poll(as: { alice }) { seen.append("again \($0.topic)") }
        #expect(seen == [#"probe.x {"n":1}"#, #"sessions.ended {"userID":"alice","sessionIDs":[]}"#])
    }

    @Test func aHostTopicsEventReachesOnlyTheHostItConcerns() throws {
        let feed = ListFeed()
        let subscriptions = FeedSubscriptions(logger: quiet)
        subscriptions.feed = feed
        _ = subscriptions.subscribe("notifications.created", plugin: h.engine.plugins[0])
        _ = subscriptions.subscribe("probe.x", plugin: h.engine.plugins[0])
        try feed.publish(topic: "notifications.created", payload: ["userID": "bob", "uuid": "n-1"])
        try feed.publish(topic: "probe.x", payload: ["userID": "bob"])
        try feed.publish(topic: "notifications.created", payload: ["userID": "alice", "uuid": "n-2"])
        var seen: [String] = []
        subscriptions.poll(as: { FeedViewer(sessionUserID: "alice") }) { seen.append("\($0.topic) \($0.payload["userID"]?.stringValue ?? "")") }
        // A flow's own topic is its own business; the host's says whose it is.
        #expect(seen == ["probe.x bob", "notifications.created alice"])
    }

    /// A session's subscription starts where its opening transaction read
    /// the feed: an event written after that commit and before the host
    /// subscribed is delivered, not passed over, and the feed is not read
    /// again for a position.
    @Test func aSubscriptionFromAPositionGetsWhatCameAfterItNotAfterTheSubscribing() throws {
        final class CountingFeed: ChangeFeed {
            let inner = ListFeed()
            var positionReads = 0
            func publish(topic: String, payload: JSON) throws { try inner.publish(topic: topic, payload: payload) }
            func latestSequence() throws -> Int64 {
                positionReads += 1
                return try inner.latestSequence()
            }
            func events(after sequence: Int64, topics: Set<String>, limit: Int) throws -> [FeedEvent] {
                try inner.events(after: sequence, topics: topics, limit: limit)
            }
            var wakeDescriptor: Int32? { nil }
            func drainWake() {}
            func confirm(_ event: FeedEvent) -> FeedEvent? { inner.confirm(event) }
            func concerns(_ event: FeedEvent, _ viewer: FeedViewer) -> Bool { inner.concerns(event, viewer) }
        }
        let feed = CountingFeed()
        let subscriptions = FeedSubscriptions(logger: quiet)
        subscriptions.feed = feed
        try feed.publish(topic: "sessions.ended", payload: ["userID": "alice", "n": 1])  // before the session: position 1
        try feed.publish(topic: "sessions.ended", payload: ["userID": "alice", "n": 2])  // another host, after its commit
        #expect(subscriptions.subscribe("sessions.ended", plugin: nil, from: 1) == .startedWatching)
        #expect(feed.positionReads == 0, "the position came with the session")
        var seen: [Int] = []
        subscriptions.poll(as: { FeedViewer(sessionUserID: "alice") }) { seen.append($0.payload["n"]?.intValue ?? 0) }
        #expect(seen == [2])
        subscriptions.unsubscribe("sessions.ended", plugin: nil)
        #expect(subscriptions.subscribe("sessions.ended", plugin: nil) == .startedWatching)
        #expect(feed.positionReads == 1, "without a position the feed is read for one")
    }

    /// A delivery that ends the last subscription ends the watch for good:
    /// the rest of the batch is not delivered, and the next subscription
    /// starts afresh (it reads its own position), not from where the poll
    /// stopped.
    @Test func aDeliveryThatEndsTheLastSubscriptionEndsTheWatch() throws {
        let feed = ListFeed()
        let subscriptions = FeedSubscriptions(logger: quiet)
        subscriptions.feed = feed
        #expect(subscriptions.subscribe("probe.x", plugin: nil) == .startedWatching)
        for n in 1...3 { try feed.publish(topic: "probe.x", payload: ["n": .int(n)]) }
        var seen: [Int] = []
        subscriptions.poll(as: { FeedViewer(sessionUserID: nil) }) { event in
            seen.append(event.payload["n"]?.intValue ?? 0)
            subscriptions.unsubscribe("probe.x", plugin: nil)
        }
        #expect(seen == [1])
        #expect(subscriptions.isEmpty)
        try feed.publish(topic: "probe.x", payload: ["n": 4])
        #expect(subscriptions.subscribe("probe.x", plugin: nil) == .startedWatching, "a new watch, not the old one's cursor")
        seen.removeAll()
        subscriptions.poll(as: { FeedViewer(sessionUserID: nil) }) { seen.append($0.payload["n"]?.intValue ?? 0) }
        #expect(seen.isEmpty, "what came before the new subscription is not delivered")
    }

    @Test func aFlowsUnsubscribeLeavesTheHostsInterest() throws {
        let subscriptions = FeedSubscriptions(logger: quiet)
        subscriptions.feed = ListFeed()
        let probe = h.engine.plugins[0]
        _ = subscriptions.subscribe("sessions.ended", plugin: nil)
        _ = subscriptions.subscribe("sessions.ended", plugin: probe)
        subscriptions.unsubscribe("sessions.ended", plugin: probe)
        #expect(!subscriptions.isEmpty)
        #expect(subscriptions.plugins(following: "sessions.ended").isEmpty)
        subscriptions.unsubscribe("sessions.ended", plugin: nil)
        #expect(subscriptions.isEmpty, "with nothing left the host stops watching")
    }
}
