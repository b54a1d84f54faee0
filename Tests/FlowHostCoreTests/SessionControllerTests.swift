@testable import FlowHostCore
import Testing

/// The session's rules alone, on a clock the test moves.
@Suite struct SessionControllerTests {
    final class Keeper: SessionKeeper {
        var touched: [String] = []
        func end(sessionID: String, reason: String) throws {}
        func touch(sessionID: String) throws { touched.append(sessionID) }
        let idleTimeoutSeconds: Int64 = 300
        let lifetimeSeconds: Int64 = 3600
        let idleWarningSeconds: Int64 = 60
    }

    func begun(at now: UInt64 = 1_000_000) -> SessionController {
        var controller = SessionController()
        controller.keeper = Keeper()
        _ = controller.begin(userID: "alice", sessionID: "s-1", deviceID: "d-1", factors: ["password"], ldaType: nil, openedBy: "mfa", now: now, wall: 5000)
        return controller
    }

    /// A warning's time left (nil: not a warning, or for someone else).
    func secondsLeft(_ due: SessionDue) -> Int? {
        guard case .warn(let session, let left) = due, session.userID == "alice" else { return nil }
        return left
    }

    @Test func beginningSchedulesTheLifetimeTheIdleEndAndTheWarning() {
        var controller = SessionController()
        controller.keeper = Keeper()
        let deadlines = controller.begin(userID: "a", sessionID: "s", deviceID: "d", factors: [], ldaType: nil, openedBy: "mfa", now: 0, wall: 0)
        #expect(deadlines == [
            ScheduledSessionDeadline(key: .sessionLifetime, at: 3_600_000), ScheduledSessionDeadline(key: .sessionIdle, at: 300_000),
            ScheduledSessionDeadline(key: .sessionWarning, at: 240_000),
        ])
    }

    @Test func idleEndsTheSessionUnlessItWasUsedMeanwhile() {
        var controller = begun(at: 0)
        _ = controller.touch(now: 100_000)
        #expect(controller.due(.sessionIdle, now: 300_000) == .reschedule(controller.idleDeadlines()))
        #expect(controller.idleDeadlines().first?.at == 400_000)
        if case .timeOut(let session, let reason) = controller.due(.sessionIdle, now: 400_000) {
            #expect(reason == "idle")
            #expect(session.sessionID == "s-1")
        } else {
            Issue.record("no idle end")
        }
    }

    @Test func oneWarningPerIdleSpell() {
        var controller = begun(at: 0)
        #expect(controller.due(.sessionWarning, now: 239_999) == .nothing)
        #expect(secondsLeft(controller.due(.sessionWarning, now: 240_000)) == 60)
        #expect(controller.due(.sessionWarning, now: 250_000) == .nothing, "warned once")
        _ = controller.touch(now: 250_000)
        #expect(secondsLeft(controller.due(.sessionWarning, now: 490_000)) == 60)
    }

    @Test func theLifetimeIsAbsolute() {
        var controller = begun(at: 0)
        _ = controller.touch(now: 3_599_000)
        #expect(controller.due(.sessionLifetime, now: 3_599_999) == .nothing)
        if case .timeOut(_, let reason) = controller.due(.sessionLifetime, now: 3_600_000) { #expect(reason == "lifetime") } else {
            Issue.record("no lifetime end")
        }
    }

    @Test func theStoreHearsOfUseAtMostOnceAMinuteAndAtOnceOnExtend() {
        var controller = begun(at: 0)
        #expect(controller.touch(now: 59_999) == nil)
        #expect(controller.touch(now: 60_000) == "s-1")
        #expect(controller.touch(now: 61_000) == nil)
        #expect(controller.extend(now: 62_000)?.persist == "s-1")
    }

    @Test func aRecentProofIsForThatUserOnThatDeviceWithinTheWindow() {
        var controller = begun()
        #expect(controller.recentlyProved(userID: "alice", deviceID: "d-1", within: 120, wall: 5120))
        #expect(!controller.recentlyProved(userID: "alice", deviceID: "d-1", within: 120, wall: 5121))
        #expect(!controller.recentlyProved(userID: "alice", deviceID: "d-2", within: nil, wall: 5000))
        let bobs = controller.issueReauthentication(userID: "bob", now: 2_000_000)
        #expect(controller.reauthenticate(token: bobs, now: 2_000_000, wall: 9000) == false, "bob is not logged in here")
        #expect(!controller.recentlyProved(userID: "alice", deviceID: "d-1", within: 120, wall: 9000))
        let alices = controller.issueReauthentication(userID: "alice", now: 2_000_000)
        #expect(controller.reauthenticate(token: alices, now: 2_059_999, wall: 9000) == true)
        #expect(controller.recentlyProved(userID: "alice", deviceID: "d-1", within: 120, wall: 9000))
        #expect(controller.reauthenticate(token: alices, now: 2_059_999, wall: 9100) == nil, "a token is spent once")
        #expect(controller.end()?.sessionID == "s-1")
        #expect(controller.end() == nil)
    }

    @Test func aReauthenticationTokenLastsAMinute() {
        var controller = begun(at: 0)
        let late = controller.issueReauthentication(userID: "alice", now: 0)
        #expect(controller.reauthenticate(token: late, now: 60_000, wall: 9000) == nil)
        #expect(controller.reauthenticate(token: "forged", now: 0, wall: 9000) == nil)
        #expect(controller.current?.lastProvedAt == 5000, "neither moved the proof")
    }
}
