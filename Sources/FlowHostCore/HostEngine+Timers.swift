import FlowJSON
import JSONRPC

/// One-shot timers for flows, and the one place every deadline fires.
extension HostEngine {
    func setTimer(delayMilliseconds: UInt32, owner: LoadedPlugin, fire: @escaping () -> Void) -> UInt64 {
        let id = nextTimerID
        nextTimerID += 1
        let deadline = MonotonicClock.nowMilliseconds() + UInt64(delayMilliseconds)
        timers[id] = PendingTimer(owner: owner, call: activeCall, deadline: deadline, fire: fire)
        deadlines.insert(.timer(id), at: deadline)
        return id
    }

    func cancelTimer(_ id: UInt64, owner: LoadedPlugin) -> Bool {
        guard let timer = timers[id], timer.owner === owner else { return false }
        timers[id] = nil
        return true
    }

    /// The earliest moment something must fire, if any.
    public var nextDeadline: UInt64? {
        deadlines.dropStale { key, deadline in !isLive(key, deadline) }
        return deadlines.earliest
    }

    /// Whether a deadline in the heap still stands for something pending.
    private func isLive(_ key: Deadline, _ deadline: UInt64) -> Bool {
        switch key {
        case .request(let id): pendingClientRequests[id]?.deadline == deadline
        case .timer(let id): timers[id]?.deadline == deadline
        case .challenge(let serial): openChallenge?.serial == serial
        case .sessionWarning, .sessionIdle, .sessionLifetime: hostSession != nil
        case .feedPoll: !subscriptions.isEmpty
        }
    }

    /// Fires everything due at `now`, earliest first, then what that deferred.
    public func fireTimers(now: UInt64 = MonotonicClock.nowMilliseconds()) {
        holdDepth += 1
        while let (deadline, key) = deadlines.popDue(now: now) {
            guard isLive(key, deadline) else { continue }
            switch key {
            case .request(let id):
                guard let pending = pendingClientRequests.removeValue(forKey: id) else { continue }
                logger.info("host request \(id) \(pending.method) timed out")
                send(.event(name: "$/cancelRequest", params: ["id": .string(id)]))
                withCall(pending.call) {
                    pending.completion(.failure(RPCError.requestTimedOut.withData(["method": .string(pending.method)])))
                }
            case .timer(let id):
                guard let timer = timers.removeValue(forKey: id) else { continue }
                withCall(timer.call) { timer.fire() }
            case .challenge(let serial):
                expireChallenge(serial: serial)
            case .sessionWarning, .sessionIdle, .sessionLifetime:
                sessionDeadline(key, now: now)
            case .feedPoll:
                pollFeed(scheduleNext: true)
            }
        }
        runDeferred()
        holdDepth -= 1
        if holdDepth == 0 { releaseHeldFrames() }
    }
}
