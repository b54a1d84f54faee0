import FlowHostAccounts
import FlowHostAudit
import FlowHostSessions
import FlowHostStore
import FlowJSON
import TestSupport
import Testing

@Suite struct SessionLedgerTests {
    final class Clock { var now: Int64 = 1_800_000_000 }

    /// The store's fixture comes first: the test keeps it, and the folder, alive.
    private func fixture(_ configure: (inout SessionSettings) -> Void = { _ in }) throws -> (ThrowAwayStore, SessionService, Clock) {
        let storage = try ThrowAwayStore(SchemaMigrator(SessionsSchema.register(in:)))
        let store = storage.store
        try store.write { try $0.insert(UserRecord(userID: "u", status: .active, activationAttemptsLeft: 3, passwordAttemptsLeft: 3, createdAt: 0)) }
        let clock = Clock()
        var settings = SessionSettings()
        configure(&settings)
        return (storage, SessionService(DomainContext(store: store, clock: { clock.now }), settings: settings), clock)
    }

    @Test func endingAllOfAUsersSessionsIsAnnouncedOnTheFeedInTheSameTransaction() throws {
        let (storage, service, _) = try fixture()
        let store = storage.store
        // A session opens as the last step of its transaction: one each.
        let ids = try (0..<3).map { _ in
            try store.write { tx in try service.ledger.open(tx, userID: "u", deviceID: "d", workflow: "NormalLogin").sessionID }
        }
        #expect(try store.write { try service.ledger.endAll($0, userID: "u", reason: "blocked") })
        let events = try store.read { try $0.feedEvents(after: 0, topics: [SessionLedger.endedTopic], limit: 10) }
        #expect(events.count == 1)
        let payload = try JSON.parse(events[0].payload)
        #expect(Set(payload["sessionIDs"]?.elements.compactMap(\.stringValue) ?? []) == Set(ids))
        #expect(payload["reason"]?.stringValue == "blocked")
        #expect(try store.write { try service.ledger.endAll($0, userID: "u", reason: "blocked") } == false, "nothing left to end")
    }

    /// A session's id starts with the second it opened, so ids sort in the
    /// order sessions opened (a new one lands at the end of the primary-key
    /// index); the rest is random: no two ids alike within a second.
    @Test func sessionIDsSortByOpeningAndStayRandom() throws {
        let (storage, service, clock) = try fixture()
        let store = storage.store
        var ids: [String] = []
        for step in [0, 0, 0, 1, 59, 3600] {
            clock.now += Int64(step)
            ids.append(try store.write { try service.ledger.open($0, userID: "u", deviceID: "d", workflow: "NormalLogin").sessionID })
        }
        let hex = Set("0123456789abcdef")
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(hex.contains) })
        #expect(Set(ids).count == ids.count && Set(ids.map { $0.dropFirst(10) }).count == ids.count)
        #expect(Set(ids[0...2].map { $0.prefix(10) }).count == 1, "one second, one prefix")
        #expect(Array(ids[2...]) == ids[2...].sorted() && Set(ids[2...]).count == 4, "later seconds sort later")
        #expect(ids[0].prefix(10) == "006b49d200", "1,800,000,000 in 10 hex digits")
        #expect(SessionIdentifier.make(openedAt: 0).hasPrefix("0000000000") && SessionIdentifier.make(openedAt: -5).hasPrefix("0000000000"))
        #expect(SessionIdentifier.make(openedAt: 0xFF_FFFF_FFFF).hasPrefix("ffffffffff"))
    }

    @Test func lifetimesComeFromTheSessionsSection() throws {
        let settings = try SessionSettings.parse(try JSON.parse(#"{"idleTimeoutSeconds":60,"lifetimeSeconds":600}"#))
        #expect(settings.idleTimeoutSeconds == 60 && settings.lifetimeSeconds == 600)
        #expect(SessionSettings().idleTimeoutSeconds == 1800 && SessionSettings().lifetimeSeconds == 43_200)
        #expect(throws: SessionSettings.Invalid(key: "sessions.idle", reason: "unknown key")) {
            try SessionSettings.parse(try JSON.parse(#"{"idle":60}"#))
        }
        #expect(throws: SessionSettings.Invalid(key: "sessions.lifetimeSeconds", reason: "must be an integer from 2 to 2592000")) {
            try SessionSettings.parse(try JSON.parse(#"{"lifetimeSeconds":1}"#))
        }
    }

    /// A login marks its registration's last access, which orders a device's
    /// remembered users (`hostHeldKeys`): not the user's registrations on
    /// other devices, and in the session's own transaction.
    @Test func aDevicesUsersComeMostRecentLoginFirst() throws {
        let (storage, service, clock) = try fixture()
        let store = storage.store
        try store.write { tx in
            for user in ["v", "w"] {
                try tx.insert(UserRecord(userID: user, status: .active, activationAttemptsLeft: 3, passwordAttemptsLeft: 3, createdAt: 0))
            }
            for user in ["u", "v", "w"] { try tx.save(DeviceRecord(userID: user, deviceID: "d", name: "phone", createdAt: 0, lastAccessAt: 0)) }
            try tx.save(DeviceRecord(userID: "u", deviceID: "other", name: "laptop", createdAt: 0, lastAccessAt: 0))
        }
        // The device's users, most recent login first, by user id when equal.
        func order() throws -> [String] {
            let registrations = try store.read { tx in try ["u", "v", "w"].compactMap { try tx.device(userID: $0, deviceID: "d") } }
            return registrations.sorted { ($0.lastAccessAt, $1.userID) > ($1.lastAccessAt, $0.userID) }.map(\.userID)
        }
        #expect(try order() == ["u", "v", "w"], "none logged in yet: by user id")
        for user in ["v", "u"] {
            clock.now += 10
            _ = try store.write { try service.ledger.open($0, userID: user, deviceID: "d", workflow: "NormalLogin") }
        }
        #expect(try order() == ["u", "v", "w"])
        clock.now += 10
        _ = try store.write { try service.ledger.open($0, userID: "v", deviceID: "d", workflow: "NormalLogin") }
        clock.now += 10
        _ = try store.write { try service.ledger.open($0, userID: "u", deviceID: "other", workflow: "NormalLogin") }
        #expect(try order() == ["v", "u", "w"], "a login on another device does not count here")
    }

    @Test func anIdleSessionEndsAndUseKeepsItOpen() throws {
        let (storage, service, clock) = try fixture { $0.idleTimeoutSeconds = 10 }
        let store = storage.store
        let id = try store.write { try service.ledger.open($0, userID: "u", deviceID: "d", workflow: "NormalLogin").sessionID }
        clock.now += 9
        try service.touch(id)
        clock.now += 9
        #expect(try service.isOpen(id))
        clock.now += 2
        #expect(try !service.isOpen(id))
    }

    /// The feed's position comes from the transaction that opens the session:
    /// it holds every event written before (the session's own transaction's
    /// too), so the host hears of exactly the events after its session began.
    @Test func aSessionOpensWithTheFeedPositionOfItsTransaction() throws {
        let (storage, service, _) = try fixture()
        let store = storage.store
        let empty = try store.write { try service.ledger.open($0, userID: "u", deviceID: "d", workflow: "NormalLogin") }
        #expect(empty.feedPosition == 0, "an empty feed")
        try store.write { tx in
            for index in 0..<3 { try tx.appendFeedEvent(topic: "t", payload: #"{"n":\#(index)}"#, at: 1) }
        }
        let afterThree = try store.read { try $0.latestFeedSequence() }
        let opened = try store.write { tx in
            try tx.appendFeedEvent(topic: "t", payload: #"{"n":3}"#, at: 1)
            return try service.ledger.open(tx, userID: "u", deviceID: "d", workflow: "NormalLogin")
        }
        #expect(opened.feedPosition == afterThree + 1, "the event written in the opening transaction is behind the position")
        #expect(opened.feedPosition == (try store.read { try $0.latestFeedSequence() }))
        #expect(try service.isOpen(opened.sessionID) && opened.sessionID != empty.sessionID)
    }
}
