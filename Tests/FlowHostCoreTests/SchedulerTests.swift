@testable import FlowHostCore
import Testing

@Suite struct SchedulerTests {
    @Test func deadlinesComeDueOnTheInjectedClockOnly() {
        let clock = ManualClock()
        let scheduler = Scheduler(clock: clock)
        scheduler.schedule(.feedPoll, inMilliseconds: 2000)
        scheduler.schedule(.sessionIdle, inMilliseconds: 500)
        #expect(scheduler.nextDeadline { _, _ in true } == clock.monotonicMilliseconds + 500)
        #expect(scheduler.popDue(now: clock.monotonicMilliseconds) == nil)
        clock.advance(milliseconds: 500)
        #expect(scheduler.popDue(now: scheduler.now)?.key == .sessionIdle)
        #expect(scheduler.popDue(now: scheduler.now) == nil)
        clock.advance(milliseconds: 1500)
        #expect(scheduler.popDue(now: scheduler.now)?.key == .feedPoll)
    }

    @Test func staleDeadlinesAreSkippedWhenAskedForTheNext() {
        let clock = ManualClock()
        let scheduler = Scheduler(clock: clock)
        scheduler.schedule(.challenge(1), inMilliseconds: 10)
        scheduler.schedule(.challenge(2), inMilliseconds: 20)
        let next = scheduler.nextDeadline { key, _ in key != .challenge(1) }
        #expect(next == clock.monotonicMilliseconds + 20)
    }

    @Test func aTimerIsTakenOutByItsOwnerOnlyAndOnce() {
        let clock = ManualClock()
        let scheduler = Scheduler(clock: clock)
        let owner = ObjectIdentifier(clock)
        let stranger = ObjectIdentifier(SystemClock())
        let id = scheduler.addTimer(inMilliseconds: 100, owner: owner, call: 7) { _ in }
        #expect(scheduler.removeTimer(id, owner: stranger) == nil)
        #expect(scheduler.removeTimer(id, owner: owner)?.call == 7)
        #expect(scheduler.removeTimer(id, owner: owner) == nil)
        #expect(scheduler.takeTimer(id) == nil)
    }

    @Test func timersOfACallAreTakenOutOldestFirst() {
        let clock = ManualClock()
        let scheduler = Scheduler(clock: clock)
        let owner = ObjectIdentifier(clock)
        _ = scheduler.addTimer(inMilliseconds: 300, owner: owner, call: 1) { _ in }
        _ = scheduler.addTimer(inMilliseconds: 100, owner: owner, call: 2) { _ in }
        _ = scheduler.addTimer(inMilliseconds: 200, owner: owner, call: 1) { _ in }
        let taken = scheduler.removeTimers { $0.call == 1 }
        let base = clock.monotonicMilliseconds
        #expect(taken.map(\.deadline) == [base + 300, base + 200], "set order, not deadline order")
        #expect(scheduler.timers.count == 1)
    }
}

extension SchedulerTests {
    @Test func aPendingTimerIsLiveWithoutAskingTheEngine() {
        let clock = ManualClock()
        let scheduler = Scheduler(clock: clock)
        let id = scheduler.addTimer(inMilliseconds: 50, owner: ObjectIdentifier(clock), call: nil) { _ in }
        #expect(scheduler.nextDeadline { _, _ in Issue.record("asked about a timer"); return false } == clock.monotonicMilliseconds + 50)
        _ = scheduler.takeTimer(id)
        #expect(scheduler.nextDeadline { _, _ in true } == nil)
    }
}
