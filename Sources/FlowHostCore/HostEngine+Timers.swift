import FlowJSON
import JSONRPC

/// One-shot timers for flows, and the one place every deadline fires.
extension HostEngine {
    /// `fire` runs exactly once: true when the timer fires, false when it is
    /// cancelled, or its call or the engine ends first.
    func setTimer(delayMilliseconds: UInt32, owner: LoadedPlugin, fire: @escaping (_ fired: Bool) -> Void) -> UInt64 {
        scheduler.addTimer(inMilliseconds: delayMilliseconds, owner: ObjectIdentifier(owner), call: router.calls.active, fire: fire)
    }

    func cancelTimer(_ id: UInt64, owner: LoadedPlugin) -> Bool {
        guard let timer = scheduler.removeTimer(id, owner: ObjectIdentifier(owner)) else { return false }
        router.withCall(timer.call) { timer.fire(false) }
        return true
    }

    /// The engine's clock, for the host table and the event loop.
    public var clock: any HostClock { scheduler.clock }

    /// The earliest moment something must fire, if any.
    public var nextDeadline: UInt64? {
        // Reads of the engine's other parts only: the scheduler is being mutated.
        scheduler.nextDeadline { key, deadline in isLive(key, deadline) }
    }

    /// Whether a deadline in the heap still stands for something pending.
    private func isLive(_ key: Deadline, _ deadline: UInt64) -> Bool {
        switch key {
        case .request(let id): router.clientRequests.isLive(id, deadline: deadline)
        case .timer(let id): scheduler.isLiveTimer(id, deadline: deadline)
        case .challenge(let serial): router.challenge.isOpen(serial: serial)
        case .sessionWarning, .sessionIdle, .sessionLifetime: session.current != nil
        case .feedPoll: !subscriptions.isEmpty
        }
    }

    /// Fires everything due at `now`, earliest first, then what that deferred.
    public func fireTimers(now given: UInt64?) {
        let now = given ?? scheduler.now
        output.holding {
            while let (deadline, key) = scheduler.popDue(now: now) {
                guard isLive(key, deadline) else { continue }
                switch key {
                case .request(let id):
                    router.timeOut(id)
                case .timer(let id):
                    guard let timer = scheduler.takeTimer(id) else { continue }
                    router.withCall(timer.call) { timer.fire(true) }
                case .challenge(let serial):
                    dialogues.expire(serial: serial)
                case .sessionWarning, .sessionIdle, .sessionLifetime:
                    session.deadline(key, now: now)
                case .feedPoll:
                    pollFeed(scheduleNext: true)
                }
            }
            runDeferred()
        }
    }
}
