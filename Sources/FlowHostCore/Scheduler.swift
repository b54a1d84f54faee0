/// What a deadline in the scheduler is for.
enum Deadline: Hashable {
    case request(String)
    case timer(UInt64)
    /// The open challenge with this serial expires.
    case challenge(Int)
    /// The host's session: its idle warning, its idle end, its lifetime.
    case sessionWarning, sessionIdle, sessionLifetime
    /// The change feed's safety-net poll.
    case feedPoll
}

/// A one-shot timer a flow set. `fire` runs exactly once: with true when it
/// fires, with false when it is cancelled or its call or flow ends first.
struct PendingTimer {
    let owner: ObjectIdentifier
    let call: UInt64?
    let deadline: UInt64
    let fire: (_ fired: Bool) -> Void
}

/// Every deadline of the engine (host requests, timers, challenges, the
/// session, the feed poll) on one clock, in one heap, plus the flows'
/// timers. Knows nothing of what a deadline means: the engine says which
/// are still live and what firing one does.
///
/// A class: the engine and its parts (the router, the dialogues, the
/// session) schedule on the same heap. Loop thread only.
final class Scheduler {
    let clock: any HostClock
    private var deadlines = DeadlineQueue<Deadline>()
    private(set) var timers: [UInt64: PendingTimer] = [:]
    private var nextTimerID: UInt64 = 1

    init(clock: any HostClock) { self.clock = clock }

    var now: UInt64 { clock.monotonicMilliseconds }

    /// Schedules `key` `milliseconds` from now; returns the deadline.
    @discardableResult
    func schedule(_ key: Deadline, inMilliseconds milliseconds: UInt64) -> UInt64 {
        let deadline = now + milliseconds
        deadlines.insert(key, at: deadline)
        return deadline
    }

    func schedule(_ key: Deadline, at deadline: UInt64) { deadlines.insert(key, at: deadline) }

    func addTimer(inMilliseconds milliseconds: UInt32, owner: ObjectIdentifier, call: UInt64?, fire: @escaping (Bool) -> Void) -> UInt64 {
        let id = nextTimerID
        nextTimerID += 1
        let deadline = schedule(.timer(id), inMilliseconds: UInt64(milliseconds))
        timers[id] = PendingTimer(owner: owner, call: call, deadline: deadline, fire: fire)
        return id
    }

    /// Takes the timer out if `owner` set it; the caller runs its callback.
    func removeTimer(_ id: UInt64, owner: ObjectIdentifier) -> PendingTimer? {
        guard timers[id]?.owner == owner else { return nil }
        return timers.removeValue(forKey: id)
    }

    /// Takes out a timer that came due.
    func takeTimer(_ id: UInt64) -> PendingTimer? { timers.removeValue(forKey: id) }

    /// Takes out every timer set under `call`, or by `owner`, oldest first.
    func removeTimers(where matches: (PendingTimer) -> Bool) -> [PendingTimer] {
        let ids = timers.filter { matches($0.value) }.map(\.key).sorted()
        return ids.compactMap { timers.removeValue(forKey: $0) }
    }

    func isLiveTimer(_ id: UInt64, deadline: UInt64) -> Bool { timers[id]?.deadline == deadline }

    /// The earliest live deadline, if any (stale entries above it dropped).
    /// A timer's liveness is known here; `isLive` answers for the others
    /// (it must not touch the scheduler: this call is mutating it).
    func nextDeadline(isLive: (Deadline, UInt64) -> Bool) -> UInt64? {
        let timers = self.timers
        deadlines.dropStale { key, deadline in
            if case .timer(let id) = key { return timers[id]?.deadline != deadline }
            return !isLive(key, deadline)
        }
        return deadlines.earliest
    }

    /// The next entry due at `now`, live or not: the caller checks.
    func popDue(now: UInt64) -> (deadline: UInt64, key: Deadline)? { deadlines.popDue(now: now) }
}
