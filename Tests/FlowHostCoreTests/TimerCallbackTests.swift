import FlowJSON
@testable import FlowHostCore
import Testing

/// Every timer callback the ABI takes runs exactly once: fired, or told it
/// was cancelled (by `cancel_timer`, the end of its call, or the engine's end).
@Suite struct TimerCallbackTests {
    final class Outcomes { var seen: [Bool] = [] }

    /// An initialized host on a manual clock, and its one flow as the timers' owner.
    func started(_ clock: ManualClock = ManualClock()) throws -> (Harness, LoadedPlugin) {
        let h = Harness(ProbeFlow.self, clock: clock)
        h.initialize()
        return (h, try #require(h.engine.plugins.first))
    }

    @Test func aFiredTimerRunsOnceWithFired() throws {
        let clock = ManualClock()
        let (h, owner) = try started(clock)
        let outcomes = Outcomes()
        let id = h.engine.setTimer(delayMilliseconds: 100, owner: owner) { outcomes.seen.append($0) }
        clock.advance(milliseconds: 99)
        h.engine.fireTimers()
        #expect(outcomes.seen.isEmpty)
        clock.advance(milliseconds: 1)
        h.engine.fireTimers()
        #expect(outcomes.seen == [true])
        #expect(!h.engine.cancelTimer(id, owner: owner))
        clock.advance(milliseconds: 10_000)
        h.engine.fireTimers()
        #expect(outcomes.seen == [true])
    }

    @Test func aCancelledTimerHearsItBeforeCancelReturnsAndNeverFires() throws {
        let clock = ManualClock()
        let (h, owner) = try started(clock)
        let outcomes = Outcomes()
        let id = h.engine.setTimer(delayMilliseconds: 100, owner: owner) { outcomes.seen.append($0) }
        #expect(h.engine.cancelTimer(id, owner: owner))
        #expect(outcomes.seen == [false])
        clock.advance(milliseconds: 1000)
        h.engine.fireTimers()
        #expect(outcomes.seen == [false])
    }

    @Test func aTimerOfACallThatEndsHearsItWasCancelled() throws {
        let (h, owner) = try started()
        let outcomes = Outcomes()
        let call = h.engine.router.startCall("probe.double", caller: owner, provider: owner, synchronous: true) { _ in }
        h.engine.router.withCall(call) { _ = h.engine.setTimer(delayMilliseconds: 100, owner: owner) { outcomes.seen.append($0) } }
        #expect(h.engine.router.completeCall(call, .success(nil), by: owner))
        #expect(outcomes.seen == [false])
    }

    @Test func pendingTimersHearTheEngineEnd() throws {
        let outcomes = Outcomes()
        do {
            let (h, owner) = try started()
            _ = h.engine.setTimer(delayMilliseconds: 100, owner: owner) { outcomes.seen.append($0) }
        }
        #expect(outcomes.seen == [false])
    }
}

/// The SDK's timer boxes are freed when the host drops a timer unfired.
@Suite(.serialized) struct SDKTimerBoxTests {
    @Test func aTimerDroppedUnfiredFreesWhatItHeld() throws {
        let before = Canary.released
        do {
            let h = Harness(ProbeFlow.self, clock: ManualClock())
            h.initialize()
            let reply = h.exchange(request(1, "probe.timer"))
            #expect(reply.last?["result"]?["timerID"]?.intValue != nil)
            #expect(Canary.released == before)
        }
        #expect(Canary.released == before + 1)
    }
}
