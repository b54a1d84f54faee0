import FlowHostVocabulary
import FlowJSON
import JSONRPC
import Logging

/// What is in progress on the host, seen as dialogues: the open challenge,
/// the service calls and the host requests, all kept by the `ServiceRouter`
/// (a call's end closes what it started). It says which dialogue is open
/// and whose it is, lets a flow method start one (or replace its own stale
/// one), routes answers to the open challenge, and ends them all when asked.
///
/// Owned by the engine; loop thread only.
final class Dialogues {
    /// `names`: the installed flows, whose host requests `abandonAll` cancels.
    let router: ServiceRouter, scheduler: Scheduler, names: NameTable
    let challengeTimeoutMilliseconds: UInt64, logger: Logger

    init(router: ServiceRouter, scheduler: Scheduler, names: NameTable, challengeTimeoutMilliseconds: UInt64, logger: Logger) {
        (self.router, self.scheduler, self.names) = (router, scheduler, names)
        (self.challengeTimeoutMilliseconds, self.logger) = (challengeTimeoutMilliseconds, logger)
    }

    /// What is in progress, if anything: a challenge other than a resting
    /// one, a service call, or a host request (in that order of precedence).
    func open() -> JSON? {
        if let open = router.challenge.inProgress { return open.inProgressDescription }
        if let call = router.calls.oldest {
            return ["flow": .string(call.provider?.name ?? call.caller?.name ?? "host"), "method": .string(call.service)]
        }
        if let request = router.clientRequests.oldest {
            return ["flow": .string(request.owner.name), "method": .string(request.method)]
        }
        return nil
    }

    /// The flow whose dialogue is open: the one that made the oldest service
    /// call still running (a challenge or host request down that call is its
    /// dialogue's), else the owner of the open challenge or host request.
    /// Nil when nothing is open, or when the host itself made the call.
    func owner() -> LoadedPlugin? {
        if let root = router.calls.roots.first { return root.caller }
        if let open = router.challenge.inProgress { return open.owner }
        return router.clientRequests.oldest?.owner
    }

    /// Ends whatever dialogue is in progress (the session it ran under ended,
    /// or its flow starts a new one):
    /// its service calls are cancelled (callers hear -32800), its host
    /// requests are cancelled (the client gets `$/cancelRequest`), and a
    /// challenge other than a resting one closes, its flow told.
    func abandonAll() {
        for call in router.calls.roots { router.cancel(call, notifyCaller: true) }
        for plugin in names.flows { router.cancelClientRequests(of: plugin) }
        if let open = router.challenge.closeInProgress() {
            router.withCall(nil) { open.owner.notify("challenge.cancelled", open.notice) }
        }
    }

    /// Whether `method` of `plugin`, which starts a dialogue, may run now:
    /// nil to go ahead, else the refusal. The seeds' apps dismiss a step-up
    /// or toggle prompt and let the user try again: the same action, retried,
    /// replaces its own stale dialogue (the old one is cancelled, its flows
    /// told). Another dialogue is never cut short.
    func admitStart(_ method: String, by plugin: LoadedPlugin) -> FlowHostError? {
        guard var open = open() else { return nil }
        if owner() === plugin, let starter = router.challenge.starter, starter.plugin == ObjectIdentifier(plugin), starter.method == method {
            logger.info("\(method) replaces \(plugin.name)'s open dialogue")
            abandonAll()
            open = self.open() ?? .null
        }
        guard open.kind != .null else { return nil }
        return FlowHostError.dialogueInProgress.withMessage("\(method) starts a dialogue, and another is in progress: finish it or reset it first")
            .withData(["open": open])
    }

    /// `method` of `plugin` succeeded: if it left a dialogue open, a retry of it may replace it.
    func started(_ method: String, by plugin: LoadedPlugin) {
        if open() != nil { router.challenge.starter = (ObjectIdentifier(plugin), method) }
    }

    /// A dialogue that ended leaves no starter behind: a later dialogue of the
    /// same flow, started another way (an answer), is never taken for a retry.
    func forgetEndedStarter() {
        if router.challenge.starter != nil, open() == nil { router.challenge.starter = nil }
    }

    /// A flow emitted a challenge event: it opens (and, unless resting, expires unanswered).
    func openChallenge(_ event: String, params: JSON, owner plugin: LoadedPlugin, spec: EventSpec) {
        let serial = router.challenge.open(
            event: event, challengeMode: params["challengeMode"]?.intValue, owner: plugin, call: router.calls.active, isResting: spec.isResting)
        if !spec.isResting, challengeTimeoutMilliseconds > 0 {
            scheduler.schedule(.challenge(serial), inMilliseconds: challengeTimeoutMilliseconds)
        }
    }

    /// The open challenge expired: it closes, and its owner hears of it
    /// (`challenge.expired`), in the context of the call it belonged to.
    func expire(serial: Int) {
        guard let open = router.challenge.close(serial: serial) else { return }
        logger.info("challenge \(open.event) of flow \(open.owner.name) expired unanswered")
        router.withCall(open.call) { open.owner.notify("challenge.expired", open.notice) }
    }

    /// An answer method: admitted by the open challenge (its name, its
    /// challengeMode), then handled by the challenge's flow, in its call.
    /// An admitted answer is client activity on `session`.
    func answer(method: String, spec: MethodSpec, params: JSON, session: SessionRuntime) -> Result<JSON?, FlowHostError> {
        let open: OpenChallenge
        switch router.challenge.admit(
            method, answers: spec.answers, ownerDeclares: router.challenge.current?.owner.declaresMethod(method) ?? false,
            challengeMode: params["challengeMode"]?.intValue)
        {
        case .failure(let error): return .failure(error)
        case .success(let admitted): open = admitted
        }
        let serialBefore = router.challenge.serial
        session.touch()
        let outcome = router.withCall(open.call) { open.owner.handle(method: method, params: params) }
        // A refused answer leaves the challenge open; an accepted one closes
        // it unless the flow opened the next one meanwhile (or its call ended).
        if case .success = outcome, router.challenge.serial == serialBefore, router.challenge.isOpen(serial: open.serial) {
            router.challenge.close()
        }
        return outcome
    }
}
