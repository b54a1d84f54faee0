import FlowHostAccounts
import FlowHostCredentials
import FlowHostStore
import FlowHostVocabulary
import FlowJSON
import Testing
@testable import FlowHostCore

/// `push.setToken` checks who asks itself, whichever flow calls: the user
/// logged in here, on the asking device; the token's rules are the host's.
@Suite struct PushTokensServiceTests {
    let h: ServicesHarness
    let token = "c0ffee1234:APA91bTokenForTheTestDevice_0123456789-abcdef"

    init() throws {
        h = try ServicesHarness()
        try h.domains.context.store.write { tx in
            try tx.insert(UserRecord(userID: "alice", activationAttemptsLeft: 3, passwordAttemptsLeft: 3, createdAt: 1000))
            try tx.save(DeviceRecord(userID: "alice", deviceID: "", name: "Phone", createdAt: 1000, lastAccessAt: 1000))
        }
        h.engine.session.begin(userID: "alice", sessionID: "s-1", feedPosition: nil, factors: ["password"], ldaType: nil, openedBy: "mfa")
    }

    func set(_ token: String, user: String = "alice", device: String = "") -> Result<JSON?, FlowHostError> {
        h.call("push.setToken", ["userID": .string(user), "deviceID": .string(device), "token": .string(token)])
    }

    func stored() throws -> String? { try h.domains.context.store.read { try $0.pushToken(userID: "alice", deviceID: "") } }

    @Test func theLoggedInDevicesTokenIsRecordedAndReplaced() throws {
        let first = try set(token).get()
        #expect(first?["outcome"]?.stringValue == "recorded" && first?["replaced"]?.boolValue == false)
        let other = String(token.reversed())
        #expect(try set(other).get()?["replaced"]?.boolValue == true)
        #expect(try stored() == other)
    }

    @Test func anotherUserOrDeviceIsRefusedAtTheHost() throws {
        for (user, device) in [("bob", ""), ("alice", "another-device")] {
            guard case .failure(let refused) = set(token, user: user, device: device) else {
                Issue.record("\(user) on \(device) set a token")
                continue
            }
            #expect(refused.code == .notAllowedNow)
        }
        #expect(try stored() == nil)
    }

    @Test func aTokenOutsideTheRulesIsInvalidParamsNamingIt() throws {
        for bad in ["short", String(repeating: "a", count: 4097), "has spaces in it, sixteen+", "émoji-token-0123456789"] {
            guard case .failure(let refused) = set(bad) else {
                Issue.record("\(bad.prefix(20)) was taken")
                continue
            }
            #expect(refused.code == .invalidParams && refused.data?["field"]?.stringValue == "token")
            #expect(!refused.message.contains(bad))
        }
        #expect(try stored() == nil)
    }

    @Test func revokingTheDeviceRemovesItsToken() throws {
        _ = try set(token).get()
        _ = try OperatorActions(h.domains.credentials).revokeDevice("alice", deviceID: "")
        #expect(try stored() == nil)
    }
}
