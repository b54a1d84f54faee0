import FlowHostAccounts
import FlowHostAudit
import FlowHostNotifications
import FlowHostStore
import FlowJSON
import Foundation
import TestSupport
import Testing

@Suite struct NotificationServiceTests {
    final class Clock { var now: Int64 = 1_800_000_000 }

    /// The test's store, removed with the suite's instance.
    let storage: ThrowAwayStore
    init() throws { storage = try ThrowAwayStore(SchemaMigrator(NotificationsSchema.register(in:))) }

    private func fixture() throws -> (NotificationService, SQLiteStore, Clock) {
        let store = storage.store
        try store.write { tx in
            for user in ["alice", "bob"] {
                try tx.insert(UserRecord(userID: user, status: .active, activationAttemptsLeft: 3, passwordAttemptsLeft: 3, createdAt: 0))
            }
        }
        let clock = Clock()
        return (NotificationService(DomainContext(store: store, clock: { clock.now })), store, clock)
    }

    private let approve = [NotificationAction(label: "Accept", action: "accept", authLevel: "1"), NotificationAction(label: "Reject", action: "reject")]

    @Test func aNotificationIsAnsweredOnceAndAnnouncedOnTheFeed() throws {
        let (service, store, _) = try fixture()
        let uuid = try service.create(userID: "alice", subject: "Pay €20?", message: "To Carol", actions: approve, expiresInSeconds: 300)
        #expect(uuid.count == 36)
        let (items, total) = try service.active(userID: "alice", startIndex: 1, recordCount: 0)
        #expect(total == 1 && items.map(\.uuid) == [uuid])
        let item = NotificationShapes.item(items[0])
        #expect(item["body"]?[0]?["subject"]?.stringValue == "Pay €20?")
        #expect(item["actions"]?[0]?["authlevel"]?.stringValue == "1")
        #expect(item["create_ts"]?.stringValue?.hasSuffix("UTC") == true)

        guard case .updated(let record) = try service.answer(userID: "alice", uuid: uuid, action: "accept", deviceID: "d1") else {
            Issue.record("not recorded"); return
        }
        #expect(record.actionPerformed == "accept" && record.answeredByDevice == "d1")
        #expect(try service.answer(userID: "alice", uuid: uuid, action: "reject", deviceID: "d2") == .alreadyAnswered)
        #expect(try service.active(userID: "alice", startIndex: 1, recordCount: 0).total == 0)
        let topics = try store.read { try $0.feedEvents(after: 0, topics: [NotificationService.createdTopic, NotificationService.updatedTopic], limit: 10) }
        #expect(topics.map(\.topic) == [NotificationService.createdTopic, NotificationService.updatedTopic])
    }

    @Test func wrongAnswersChangeNothing() throws {
        let (service, _, clock) = try fixture()
        let uuid = try service.create(userID: "alice", subject: "s", message: "m", actions: approve, expiresInSeconds: 60)
        #expect(try service.answer(userID: "bob", uuid: uuid, action: "accept", deviceID: "d") == .unknown, "another user's: as if unknown")
        #expect(try service.answer(userID: "alice", uuid: "no-such", action: "accept", deviceID: "d") == .unknown)
        #expect(try service.answer(userID: "alice", uuid: uuid, action: "maybe", deviceID: "d") == .actionNotOffered)
        clock.now += 60
        #expect(try service.answer(userID: "alice", uuid: uuid, action: "accept", deviceID: "d") == .expired)
        let history = try service.history(userID: "alice", startIndex: 1, recordCount: 0)
        #expect(NotificationShapes.historyItem(history[0], now: clock.now)["status"]?.stringValue == "EXPIRED")
    }

    @Test func pagesAndBadInput() throws {
        let (service, _, clock) = try fixture()
        var made: [String] = []
        for index in 0..<5 {
            clock.now += 1
            made.append(try service.create(userID: "alice", subject: "n\(index)", message: "m", actions: approve, expiresInSeconds: 600))
        }
        let page = try service.active(userID: "alice", startIndex: 2, recordCount: 2)
        #expect(page.total == 5 && page.items.map(\.uuid) == [made[3], made[2]], "newest first, 1-based start")
        #expect(throws: NotificationError.self) { try service.create(userID: "alice", subject: "", message: "m", actions: approve, expiresInSeconds: 60) }
        #expect(throws: NotificationError.self) { try service.create(userID: "alice", subject: "s", message: "m", actions: [], expiresInSeconds: 60) }
        #expect(throws: StoreError.notFound) { try service.create(userID: "nobody", subject: "s", message: "m", actions: approve, expiresInSeconds: 60) }
    }
}
