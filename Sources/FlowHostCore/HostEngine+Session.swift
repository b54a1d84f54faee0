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
///
/// The engine speaks no flow's vocabulary here: it tells the flows
/// (`notify("session", …)`: opened, expiring, timingOut, ended), and the
/// flow that logs users in says it to the client in the SDK's words.
extension HostEngine {
    /// The feed topic on which the store announces sessions it ended.
    public static let sessionsEndedTopic = "sessions.ended"

    public var currentSession: HostSession? { hostSession.current }

    /// Where the session's facts are kept and ended (set by the services module).
    public var sessionKeeper: (any SessionKeeper)? {
        get { hostSession.keeper }
        set { hostSession.keeper = newValue }
    }

    /// A user logged in on this host (called by the login services, for
    /// the flow `caller`). The session belongs to the flow whose dialogue
    /// the login is: the caller at the root of the running call's chain
    /// (`mfa`, when `device-activation` completes a new device for it).
    public func beginSession(userID: String, sessionID: String, factors: [String], ldaType: Int?, openedBy caller: String) {
        let deadlines = hostSession.begin(
            userID: userID, sessionID: sessionID, deviceID: clientDevice["deviceID"]?.stringValue ?? "", factors: factors, ldaType: ldaType,
            openedBy: calls.rootCaller(of: calls.active)?.name ?? caller, now: scheduler.now, wall: clock.wallSeconds)
        schedule(deadlines)
        _ = subscribe(Self.sessionsEndedTopic, plugin: nil)
        let notice = hostSession.current!.json()
        notice["event"] = "opened"
        tellFlows("session", notice)
        if let afterLogin { deferred.append(afterLogin) }
    }

    /// `userID` was verified again (a step-up's password, an LDA check and
    /// the device's key): the evidence, a one-time token a flow spends with
    /// `session.reauthenticate` within a minute. Verifying is a service's
    /// fact; re-authenticating the session is the flow's explicit step.
    public func issueReauthentication(userID: String) -> String {
        hostSession.issueReauthentication(userID: userID, now: scheduler.now)
    }

    /// `session.reauthenticate`: spends `token`; the session's `lastProvedAt`
    /// moves to now when it is `token`'s user's. False: no session of that
    /// user here (nothing to re-authenticate). Services that change
    /// credentials require a recent proof (`recentlyProved`).
    public func reauthenticate(with token: String) throws(ServiceError) -> Bool {
        switch hostSession.reauthenticate(token: token, now: scheduler.now, wall: clock.wallSeconds) {
        case nil: throw ServiceError(.invalidParams, message: "reauthentication: unknown, spent or expired", data: ["field": "reauthentication"])
        case let done?: return done
        }
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

    /// `session.extend` (the SDK's `extendSessionIdleTimeout`): the idle
    /// lifetime restarts now, and the store hears of it at once.
    public func extendSession() throws(ServiceError) {
        guard let extended = hostSession.extend(now: scheduler.now) else {
            throw ServiceError(.notAllowedNow, message: "No user is logged in on this host")
        }
        if let sessionID = extended.persist { recordUse(sessionID) }
        schedule(extended.deadlines)
    }

    private func schedule(_ deadlines: [ScheduledSessionDeadline]) {
        for deadline in deadlines { scheduler.schedule(deadline.key, at: deadline.at) }
    }

    func sessionDeadline(_ key: Deadline, now: UInt64) {
        switch hostSession.due(key, now: now) {
        case .nothing: return
        case .reschedule(let deadlines): schedule(deadlines)
        case .warn(let session, let secondsLeft):
            let notice = session.json()
            notice["event"] = "expiring"
            notice["secondsLeft"] = .int(secondsLeft)
            tellFlowsNow("session", notice)
        case .timeOut(let session, let reason):
            // Before the session ends: the client hears why, then what ending it set off.
            let notice: JSON = [
                "event": "timingOut", "userID": .string(session.userID), "sessionID": .string(session.sessionID), "reason": .string(reason),
            ]
            tellFlowsNow("session", notice)
            endSession(reason: reason)
        }
    }

    /// Tells every flow, after the current call: a flow that caused the
    /// change is not re-entered while it runs.
    func tellFlows(_ topic: String, _ payload: JSON) {
        deferred.append { [self] in tellFlowsNow(topic, payload) }
    }

    /// Tells every flow at once: only where no flow runs (a deadline).
    private func tellFlowsNow(_ topic: String, _ payload: JSON) {
        for plugin in plugins { withCall(nil) { plugin.notify(topic, payload) } }
    }

    /// Whether `plugin` may end dialogues other flows run (`abandon_dialogues`):
    /// only the flow that opened the session, for the dialogues under it.
    func mayAbandonDialogues(_ plugin: LoadedPlugin) -> Bool {
        hostSession.current?.openedBy == plugin.name
    }

    /// At exit: a session nobody can use any more ends now.
    public func finishSession() {
        endSession(reason: "host-exit")
        runDeferred()
    }
}
