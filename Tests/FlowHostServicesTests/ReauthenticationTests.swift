import FlowHostVocabulary
import FlowJSON
import JSONRPC
import Testing
@testable import FlowHostCore

/// Re-authentication is an explicit step of the session: a verification
/// gives a one-time token, and only spending it moves `lastProvedAt`.
@Suite struct ReauthenticationTests {
    let clock = ManualClock()
    let h: ServicesHarness

    init() throws {
        h = try ServicesHarness(clock: clock)
        h.engine.session.begin(userID: "alice", sessionID: "s-1", feedPosition: nil, factors: ["password"], ldaType: nil, openedBy: "mfa")
        clock.advance(milliseconds: 600_000)
    }

    func spend(_ token: String) -> Result<JSON?, FlowHostError> { h.call("session.reauthenticate", ["reauthentication": .string(token)]) }

    @Test func aVerificationsTokenMovesTheProofOnceAndOnlyForItsUser() throws {
        let loggedInAt = try #require(h.engine.session.current?.lastProvedAt)
        #expect(!h.engine.session.recentlyProved(userID: "alice", deviceID: "", within: 300), "ten minutes after the login")
        let token = h.engine.session.issueReauthentication(userID: "alice")
        #expect(h.engine.session.current?.lastProvedAt == loggedInAt, "verifying alone moves nothing")
        #expect(try spend(token).get()?["reauthenticated"]?.boolValue == true)
        #expect(h.engine.session.current?.lastProvedAt == clock.wallSeconds)
        #expect(h.engine.session.recentlyProved(userID: "alice", deviceID: "", within: 300))
        guard case .failure(let spent) = spend(token) else {
            Issue.record("a token was spent twice")
            return
        }
        #expect(spent.code == .invalidParams)
        #expect(try spend(h.engine.session.issueReauthentication(userID: "bob")).get()?["reauthenticated"]?.boolValue == false)
    }

    @Test func aForgedOrStaleTokenIsRefused() {
        let stale = h.engine.session.issueReauthentication(userID: "alice")
        clock.advance(milliseconds: 60_000)
        for token in [stale, "00112233445566778899aabbccddeeff"] {
            guard case .failure(let error) = spend(token) else {
                Issue.record("\(token) was accepted")
                return
            }
            #expect(error.data?["field"]?.stringValue == "reauthentication")
        }
        #expect(!h.engine.session.recentlyProved(userID: "alice", deviceID: "", within: 300))
    }

    @Test func theSessionsFlowIsTheOneItWasOpenedFor() {
        #expect(h.engine.session.current?.openedBy == "mfa")
        #expect(h.call("session.extend", .object()).isSuccess)
        h.engine.session.end(reason: "logoff")
        guard case .failure(let error) = h.call("session.extend", .object()) else {
            Issue.record("extended no session")
            return
        }
        #expect(error.code == .notAllowedNow)
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}
