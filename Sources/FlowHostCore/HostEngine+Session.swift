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

    public var currentSession: HostSession? { hostSession.current }

    /// Where the session's facts are kept and ended (set by the services module).
    public var sessionKeeper: (any SessionKeeper)? {
        get { hostSession.keeper }
        set { hostSession.keeper = newValue }
    }

    /// A user logged in on this host (called by the login services).
    public func beginSession(userID: String, sessionID: String, factors: [String], ldaType: Int?) {
        let deadlines = hostSession.begin(
            userID: userID, sessionID: sessionID, deviceID: clientDevice["deviceID"]?.stringValue ?? "", factors: factors, ldaType: ldaType,
            now: scheduler.now, wall: clock.wallSeconds)
        schedule(deadlines)
        subscribeHost(to: Self.sessionsEndedTopic)
        let notice = hostSession.current!.json()
        notice["event"] = "opened"
        tellFlows("session", notice)
        if let afterLogin { deferred.append(afterLogin) }
    }

    /// The logged-in user proved who they are again (a step-up the host
    /// checked): the session's `lastProvedAt` moves to now. Services that
    /// change credentials require a recent one (`recentlyProved`).
    public func sessionReauthenticated(userID: String) {
        hostSession.reauthenticated(userID: userID, wall: clock.wallSeconds)
    }

    /// Whether `userID` is logged in on this host, on `deviceID`, and (when
    /// `seconds` is given) proved who they are within the last `seconds`.
    public func recentlyProved(userID: String, deviceID: String, within seconds: Int64?) -> Bool {
        hostSession.recentlyProved(userID: userID, deviceID: deviceID, within: seconds, wall: clock.wallSeconds)
    }

    /// Ends this host's session: in the store (unless it ended there
    /// already), then every flow hears it. Returns false when no one is logged in.
    @discardableResult
    public func endSession(reason: String, inStore: Bool = true) -> Bool {
        guard let ended = hostSession.end() else { return false }
        unsubscribe(Self.sessionsEndedTopic, plugin: nil)
        // A dialogue that ran under the session cannot go on without it.
        if reason != "logoff" { abandonDialogues() }
        if inStore, let keeper = hostSession.keeper {
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
        guard hostSession.current?.sessionID == sessionID else { return }
        endSession(reason: reason, inStore: false)
    }

    /// Client activity while logged in: the idle lifetime restarts (kept in
    /// the store at most once a minute, so other hosts' sweeps agree).
    func touchSession() {
        if let sessionID = hostSession.touch(now: scheduler.now) { recordUse(sessionID) }
    }

    /// Tells the store the session was used (its idle lifetime restarts there too).
    private func recordUse(_ sessionID: String) {
        guard let keeper = hostSession.keeper else { return }
        do { try keeper.touch(sessionID: sessionID) } catch { logger.error("recording session use failed: \(error)") }
    }

    /// `extendSessionIdleTimeout`: the SDK's answer is an event.
    func extendSession() throws(RPCError) {
        guard let extended = hostSession.extend(now: scheduler.now) else {
            throw RPCError(.notAllowedNow, message: "No user is logged in on this host")
        }
        if let sessionID = extended.persist { recordUse(sessionID) }
        schedule(extended.deadlines)
        send(.event(name: "onSessionExtensionResponse", params: SDKShapes.statusAndError()))
    }

    private func schedule(_ deadlines: [ScheduledSessionDeadline]) {
        for deadline in deadlines { scheduler.schedule(deadline.key, at: deadline.at) }
    }

    func sessionDeadline(_ key: Deadline, now: UInt64) {
        switch hostSession.due(key, now: now) {
        case .nothing: return
        case .reschedule(let deadlines): schedule(deadlines)
        case .warn(let userID, let secondsLeft):
            let params: JSON = [
                "userID": .string(userID), "message": "The session will end soon without activity.",
                "timeLeftInSeconds": .int(secondsLeft), "sessionCanBeExtended": 1,
                "info": ["sessionType": 1, "currentWorkFlow": "NormalLogin"],
            ]
            send(.event(name: "onSessionTimeOutNotification", params: params))
        case .timeOut(let reason, let message):
            send(.event(name: "onSessionTimeout", params: ["message": .string(message)]))
            endSession(reason: reason)
        }
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
