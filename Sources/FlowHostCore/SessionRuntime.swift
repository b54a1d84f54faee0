import FlowHostVocabulary
import FlowJSON
import JSONRPC
import Logging

/// The host-owned session, acted on: begun by the services that log a user
/// in, read and ended by any flow, watched for idleness and age, and ended
/// when the store says so (an operator's block, seen through the change
/// feed). `SessionController` decides; this carries it out (deadlines, the
/// store, the flows' notices).
///
/// It speaks no flow's vocabulary: it tells the flows (`notify("session",
/// …)`: opened, expiring, timingOut, ended), and the flow that logs users
/// in says it to the client in the SDK's words.
///
/// Owned by the engine (`engine.session`); loop thread only.
public final class SessionRuntime {
    /// The session's state and rules.
    var controller = SessionController()
    /// What it acts through: the call chain a login or a failed step belongs
    /// to, and notices deferred past the call (`router`); what ends with the
    /// session (`dialogues`); the device it opens on (`client`); its
    /// deadlines; the feed that announces its end; the flows it tells (`names`).
    let router: ServiceRouter, dialogues: Dialogues, client: ConnectedClient, scheduler: Scheduler
    let subscriptions: FeedSubscriptions, names: NameTable, logger: Logger
    /// Upkeep the services module runs after a user logs in on this host
    /// (the store's retention sweep, at most hourly); after the login's
    /// commit, never inside a client's wait for a challenge.
    public var afterLogin: (() -> Void)?

    init(router: ServiceRouter, dialogues: Dialogues, client: ConnectedClient, scheduler: Scheduler, subscriptions: FeedSubscriptions, names: NameTable, logger: Logger) {
        (self.router, self.dialogues, self.client, self.scheduler) = (router, dialogues, client, scheduler)
        (self.subscriptions, self.names, self.logger) = (subscriptions, names, logger)
    }

    /// The feed topic on which the store announces sessions it ended.
    public static let endedTopic = "sessions.ended"

    public var current: HostSession? { controller.current }

    /// Where the session's facts are kept and ended (set by the services module).
    public var keeper: (any SessionKeeper)? {
        get { controller.keeper }
        set { controller.keeper = newValue }
    }

    /// A user logged in on this host (called by the login services, for
    /// the flow `caller`). The session belongs to the flow whose dialogue
    /// the login is: the caller at the root of the running call's chain
    /// (`mfa`, when `device-activation` completes a new device for it).
    /// `feedPosition`: the change feed's position read in the transaction
    /// that opened the session; the host hears of its end from there.
    public func begin(userID: String, sessionID: String, feedPosition: Int64?, factors: [String], ldaType: Int?, openedBy caller: String) {
        let deadlines = controller.begin(
            userID: userID, sessionID: sessionID, deviceID: client.device["deviceID"]?.stringValue ?? "", factors: factors, ldaType: ldaType,
            openedBy: router.calls.rootCaller(of: router.calls.active)?.name ?? caller, now: scheduler.now, wall: scheduler.clock.wallSeconds)
        schedule(deadlines)
        _ = subscriptions.subscribe(Self.endedTopic, plugin: nil, from: feedPosition, polling: scheduler)
        let notice = controller.current!.json()
        notice["event"] = "opened"
        tellFlows("session", notice)
        if let afterLogin { router.deferred.append(afterLogin) }
    }

    /// `userID` was verified again (a step-up's password, an LDA check and
    /// the device's key): the evidence, a one-time token a flow spends with
    /// `session.reauthenticate` within a minute. Verifying is a service's
    /// fact; re-authenticating the session is the flow's explicit step.
    public func issueReauthentication(userID: String) -> String {
        controller.issueReauthentication(userID: userID, now: scheduler.now)
    }

    /// A session to end once the step that found it must end has been reported.
    private var endAfterStep: (sessionID: String, reason: String, step: UInt64?)?

    /// A verifying service found that `userID`'s session must end (a
    /// step-up's password ran out of attempts or has expired: the SDK's 153
    /// and 110, after which the SDK logs the user off). The host ends it,
    /// whichever flow asked and whatever its language: once the call chain
    /// the step ran under has finished and its caller has heard the outcome
    /// (the flow's report first, then the logoff, as in the SDK), or after
    /// the current request when no call was running.
    public func end(afterStepOf userID: String, reason: String) {
        guard let current = controller.current, current.userID == userID else { return }
        endAfterStep = (current.sessionID, reason, router.calls.root(of: router.calls.active))
    }

    /// Ends the session `end(afterStepOf:)` named, once its step is over
    /// (the engine asks after each round of deferred callbacks).
    func endIfStepReported() {
        guard let pending = endAfterStep else { return }
        if let step = pending.step, router.calls[step] != nil { return }
        endAfterStep = nil
        guard controller.current?.sessionID == pending.sessionID else { return }
        logger.info("session ended by the host after a failed step (\(pending.reason))")
        end(reason: pending.reason)
    }

    /// `session.reauthenticate`: spends `token`; the session's `lastProvedAt`
    /// moves to now when it is `token`'s user's. False: no session of that
    /// user here (nothing to re-authenticate). Services that change
    /// credentials require a recent proof (`recentlyProved`).
    public func reauthenticate(with token: String) throws(FlowHostError) -> Bool {
        switch controller.reauthenticate(token: token, now: scheduler.now, wall: scheduler.clock.wallSeconds) {
        case nil: throw FlowHostError(.invalidParams, message: "reauthentication: unknown, spent or expired", data: ["field": "reauthentication"])
        case let done?: return done
        }
    }

    /// Whether `userID` is logged in on this host, on `deviceID`, and (when
    /// `seconds` is given) proved who they are within the last `seconds`.
    public func recentlyProved(userID: String, deviceID: String, within seconds: Int64?) -> Bool {
        controller.recentlyProved(userID: userID, deviceID: deviceID, within: seconds, wall: scheduler.clock.wallSeconds)
    }

    /// Ends this host's session: in the store (unless it ended there
    /// already), then every flow hears it. Returns false when no one is logged in.
    @discardableResult
    public func end(reason: String, inStore: Bool = true) -> Bool {
        guard let ended = controller.end() else { return false }
        subscriptions.unsubscribe(Self.endedTopic, plugin: nil)
        // A dialogue that ran under the session cannot go on without it.
        if reason != "logoff" { dialogues.abandonAll() }
        if inStore, let keeper = controller.keeper {
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
    public func ended(sessionID: String, reason: String) {
        guard controller.current?.sessionID == sessionID else { return }
        end(reason: reason, inStore: false)
    }

    /// Client activity while logged in: the idle lifetime restarts (kept in
    /// the store at most once a minute, so other hosts' sweeps agree).
    func touch() {
        if let sessionID = controller.touch(now: scheduler.now) { recordUse(sessionID) }
    }

    /// Tells the store the session was used (its idle lifetime restarts there too).
    private func recordUse(_ sessionID: String) {
        guard let keeper = controller.keeper else { return }
        do { try keeper.touch(sessionID: sessionID) } catch { logger.error("recording session use failed: \(error)") }
    }

    /// `session.extend` (the SDK's `extendSessionIdleTimeout`): the idle
    /// lifetime restarts now, and the store hears of it at once.
    public func extend() throws(FlowHostError) {
        guard let extended = controller.extend(now: scheduler.now) else {
            throw FlowHostError(.notAllowedNow, message: "No user is logged in on this host")
        }
        if let sessionID = extended.persist { recordUse(sessionID) }
        schedule(extended.deadlines)
    }

    private func schedule(_ deadlines: [ScheduledSessionDeadline]) {
        for deadline in deadlines { scheduler.schedule(deadline.key, at: deadline.at) }
    }

    func deadline(_ key: Deadline, now: UInt64) {
        switch controller.due(key, now: now) {
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
            end(reason: reason)
        }
    }

    /// Tells every flow, after the current call: a flow that caused the
    /// change is not re-entered while it runs.
    func tellFlows(_ topic: String, _ payload: JSON) {
        router.deferred.append { [self] in tellFlowsNow(topic, payload) }
    }

    /// Tells every flow at once: only where no flow runs (a deadline).
    private func tellFlowsNow(_ topic: String, _ payload: JSON) {
        for plugin in names.flows { router.withCall(nil) { plugin.notify(topic, payload) } }
    }

    /// Whether `plugin` may end dialogues other flows run (`abandon_dialogues`):
    /// only the flow that opened the session, for the dialogues under it.
    func mayAbandonDialogues(_ plugin: LoadedPlugin) -> Bool {
        controller.current?.openedBy == plugin.name
    }
}
