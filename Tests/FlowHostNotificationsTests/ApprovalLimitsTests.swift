@testable import FlowHostNotifications
import FlowHostStore
import FlowHostVocabulary
import FlowJSON
import Testing

/// The limits on device-approval requests, as pure rules over the requests
/// of the last hour (issue 21.5).
@Suite struct ApprovalLimitsTests {
    let now: Int64 = 1_800_000_000

    func request(_ requester: String, createdAgo: Int64, status: String = "ACTIVE", expiresIn: Int64 = 300) -> NotificationRecord {
        NotificationRecord(
            uuid: "u-\(requester)-\(createdAgo)", userID: "alice", body: "[]", actions: "[]", kind: "device-approval",
            context: #"{"deviceID":"\#(requester)"}"#, createdAt: now - createdAgo, expiresAt: now - createdAgo + expiresIn, status: status)
    }

    @Test func pendingRequestsFromOtherDevicesAreCappedButADevicesOwnIsReplaced() {
        let limits = ApprovalLimits()
        let pending = [request("a", createdAgo: 100), request("b", createdAgo: 50), request("c", createdAgo: 10)]
        let refused = limits.refusal(recent: pending, requester: "d", now: now)
        #expect(refused?.reason == "too-many-pending")
        #expect(refused?.retryAfterSeconds == 200, "until the oldest pending one expires")
        #expect(limits.refusal(recent: pending, requester: "a", now: now) == nil, "a's new request replaces its own")
        let answered = pending.map { var done = $0; done.status = "UPDATED"; return done }
        #expect(limits.refusal(recent: answered, requester: "d", now: now) == nil)
    }

    @Test func anHourCountsEveryRequestWhateverItsState() {
        let limits = ApprovalLimits(pendingPerUser: 3, perUserPerHour: 10, perRequesterPerHour: 5)
        let own = (1...5).map { request("x", createdAgo: Int64($0) * 60, status: "DISCARDED") }
        let refused = limits.refusal(recent: own, requester: "x", now: now)
        #expect(refused?.reason == "rate-requester" && refused?.retryAfterSeconds == 3600 - 300)
        #expect(limits.refusal(recent: own, requester: "y", now: now) == nil)
        let many = (1...10).map { request("d\($0)", createdAgo: Int64($0) * 100, status: "UPDATED") }
        let user = limits.refusal(recent: many, requester: "new", now: now)
        #expect(user?.reason == "rate-user" && user?.retryAfterSeconds == 3600 - 1000)
        let older = (1...10).map { request("d\($0)", createdAgo: 3600 + Int64($0), status: "UPDATED") }
        #expect(limits.refusal(recent: older, requester: "new", now: now) == nil, "only the last hour counts")
    }

    @Test func theOperatorsSectionIsCheckedKeyByKey() throws {
        #expect(try ApprovalLimits.parse(nil) == ApprovalLimits())
        let set = try ApprovalLimits.parse(["pendingPerUser": 5, "perUserPerHour": 50, "perRequesterPerHour": 7])
        #expect(set == ApprovalLimits(pendingPerUser: 5, perUserPerHour: 50, perRequesterPerHour: 7))
        for bad: JSON in [["pendingPerUser": 0], ["perUserPerHour": "10"], ["perHour": 1], "x"] {
            #expect(throws: ConfigError.self, "\(bad.serialized())") { try ApprovalLimits.parse(bad) }
        }
    }
}
