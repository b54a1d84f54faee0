import FlowJSON
import JSONRPC

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The host-owned session: begun by the services that log a user in, read
/// and ended by any flow, watched for idleness and age, and ended when the
/// store says so (an operator's block, seen through the change feed).
extension HostEngine {
    /// The feed topic on which the store announces sessions it ended.
    public static let sessionsEndedTopic = "sessions.ended"

    public var currentSession: HostSession? { hostSession }

    /// A user logged in on this host (called by the login services).
    public func beginSession(userID: String, sessionID: String, factors: [String], ldaType: Int?) {
        let now = scheduler.now
        let wall = clock.wallSeconds
        hostSession = HostSession(
            userID: userID, sessionID: sessionID, deviceID: session?["device"]?["deviceID"]?.stringValue ?? "", since: wall,
            lastProvedAt: wall, factors: factors, ldaType: ldaType, startedMs: now, lastActivityMs: now, lastPersistedMs: now)
        if let keeper = sessionKeeper {
            scheduler.schedule(.sessionLifetime, at: now + UInt64(keeper.lifetimeSeconds) * 1000)
            scheduleIdleDeadlines()
        }
        subscribeHost(to: Self.sessionsEndedTopic)
        let notice = hostSession!.json()
        notice["event"] = "opened"
        tellFlows("session", notice)
        if let afterLogin { deferred.append(afterLogin) }
    }

    /// The logged-in user proved who they are again (a step-up the host
    /// checked): the session's `lastProvedAt` moves to now. Services that
    /// change credentials require a recent one (`recentlyProved`).
    public func sessionReauthenticated(userID: String) {
        guard hostSession?.userID == userID else { return }
        hostSession?.lastProvedAt = clock.wallSeconds
    }

    /// Whether `userID` is logged in on this host, on `deviceID`, and (when
    /// `seconds` is given) proved who they are within the last `seconds`.
    public func recentlyProved(userID: String, deviceID: String, within seconds: Int64?) -> Bool {
        guard let current = hostSession, current.userID == userID, current.deviceID == deviceID else { return false }
        guard let seconds else { return true }
        return clock.wallSeconds - current.lastProvedAt <= seconds
    }

    /// Ends this host's session: in the store (unless it ended there
    /// already), then every flow hears it. Returns false when no one is logged in.
    @discardableResult
    public func endSession(reason: String, inStore: Bool = true) -> Bool {
        guard let ended = hostSession else { return false }
        hostSession = nil
        unsubscribe(Self.sessionsEndedTopic, plugin: nil)
        // A dialogue that ran under the session cannot go on without it.
        if reason != "logoff" { abandonDialogues() }
        if inStore, let keeper = sessionKeeper {
            do { try keeper.end(sessionID: ended.sessionID, reason: reason) } catch {
                logger.error("ending session in the store failed: \(error)")
            }
        }
        let notice: JSON = [
            "event": "ended", "userID": .string(ended.userID), "sessionID": .string(ended.sessionID), "reason": .string(reason),
        ]
        tellFlows("session", notice)
        return true
    }

    /// A session ended through a service (logoff): forget it here too.
    public func sessionEnded(sessionID: String, reason: String) {
        guard hostSession?.sessionID == sessionID else { return }
        endSession(reason: reason, inStore: false)
    }

    /// Client activity while logged in: the idle lifetime restarts (kept in
    /// the store at most once a minute, so other hosts' sweeps agree).
    func touchSession() {
        guard var current = hostSession else { return }
        let now = scheduler.now
        current.lastActivityMs = now
        if now - current.lastPersistedMs >= 60_000, let keeper = sessionKeeper {
            current.lastPersistedMs = now
            do { try keeper.touch(sessionID: current.sessionID) } catch { logger.error("recording session use failed: \(error)") }
        }
        hostSession = current
    }

    /// `extendSessionIdleTimeout`: the SDK's answer is an event.
    func extendSession() throws(RPCError) {
        guard hostSession != nil else {
            throw RPCError(.notAllowedNow, message: "No user is logged in on this host")
        }
        hostSession!.lastPersistedMs = 0
        touchSession()
        scheduleIdleDeadlines()
        send(.event(name: "onSessionExtensionResponse", params: SDKShapes.statusAndError()))
    }

    private func scheduleIdleDeadlines() {
        guard let current = hostSession, let keeper = sessionKeeper else { return }
        let idleEnd = current.lastActivityMs + UInt64(keeper.idleTimeoutSeconds) * 1000
        scheduler.schedule(.sessionIdle, at: idleEnd)
        let warning = UInt64(max(0, keeper.idleTimeoutSeconds - keeper.idleWarningSeconds)) * 1000
        scheduler.schedule(.sessionWarning, at: current.lastActivityMs + warning)
    }

    func sessionDeadline(_ key: Deadline, now: UInt64) {
        guard let current = hostSession, let keeper = sessionKeeper else { return }
        let idleEnd = current.lastActivityMs + UInt64(keeper.idleTimeoutSeconds) * 1000
        switch key {
        case .sessionLifetime:
            guard now >= current.startedMs + UInt64(keeper.lifetimeSeconds) * 1000 else { return }
            timeOut(current, reason: "lifetime", message: "The session reached its maximum lifetime; log in again.")
        case .sessionIdle:
            if now >= idleEnd {
                timeOut(current, reason: "idle", message: "The session ended after a period without activity; log in again.")
            } else {
                scheduleIdleDeadlines()  // used meanwhile: the clock starts again
            }
        case .sessionWarning:
            let warnAt = idleEnd - UInt64(keeper.idleWarningSeconds) * 1000
            guard now >= warnAt, current.warnedForActivityMs != current.lastActivityMs, now < idleEnd else { return }
            hostSession?.warnedForActivityMs = current.lastActivityMs
            let params: JSON = [
                "userID": .string(current.userID), "message": "The session will end soon without activity.",
                "timeLeftInSeconds": .int(Int((idleEnd - now + 999) / 1000)), "sessionCanBeExtended": 1,
                "info": ["sessionType": 1, "currentWorkFlow": "NormalLogin"],
            ]
            send(.event(name: "onSessionTimeOutNotification", params: params))
        default:
            return
        }
    }

    private func timeOut(_ current: HostSession, reason: String, message: String) {
        send(.event(name: "onSessionTimeout", params: ["message": .string(message)]))
        endSession(reason: reason)
    }

    /// Tells every flow, after the current call: a flow that caused the
    /// change is not re-entered while it runs.
    func tellFlows(_ topic: String, _ payload: JSON) {
        deferred.append { [self] in
            for plugin in plugins { withCall(nil) { plugin.notify(topic, payload) } }
        }
    }

    /// At exit: a session nobody can use any more ends now.
    public func finishSession() {
        endSession(reason: "host-exit")
        runDeferred()
    }
}

/// The SDK's `status` and `error` parts, for the host's own events.
enum SDKShapes {
    static func statusAndError(status: Int = 100, message: String = "Success") -> JSON {
        [
            "status": ["statusCode": .int(status), "statusMessage": .string(message)],
            "error": ["longErrorCode": 0, "shortErrorCode": 0, "errorString": "Success"],
        ]
    }
}
