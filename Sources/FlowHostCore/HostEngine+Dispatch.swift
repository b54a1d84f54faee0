import FlowJSON
import JSONRPC

extension HostEngine {
    /// Runs one call (request or notification) and returns its outcome.
    func dispatch(method: String, params: JSON?) -> Result<JSON?, RPCError> {
        if method == "exit" {
            // LSP's convention: exit without a prior shutdown is an error exit.
            requestedExit = lifecycle == .shutDown ? 0 : 1
            return .success(nil)
        }
        guard let route = names[method: method] else {
            return .failure(RPCError.methodNotFound.withMessage("Method not found: \(method)").withData(["method": .string(method)]))
        }
        switch lifecycle {
        case .awaitingInitialize where method != "initialize" && method != "rpc.discover":
            return .failure(RPCError.notInitialized)
        case .shutDown:
            return .failure(RPCError.shuttingDown)
        default:
            break
        }
        // A dialogue that ended leaves no starter behind: a later dialogue of the
        // same flow, started another way (an answer), is never taken for a retry.
        if challenge.starter != nil, openDialogue() == nil { challenge.starter = nil }
        let bound: JSON
        do { bound = try ParamBinder.bind(params, to: route.spec.params, empty: emptyObject) } catch { return .failure(error) }
        defer { if bound === emptyObject { guardEmptyObject() } }

        switch route {
        case .builtin(_, let body):
            do { return .success(try body(bound)) } catch { return .failure(error) }
        case .flow(let plugin, let spec):
            if spec.startsDialogue, var open = openDialogue() {
                // The seeds' apps dismiss a step-up or toggle prompt and let the user try
                // again: the same action, retried, replaces its own stale dialogue (the old
                // one is cancelled, its flows told). Another dialogue is never cut short.
                if dialogueOwner() === plugin, let starter = challenge.starter, starter.plugin == ObjectIdentifier(plugin),
                    starter.method == method
                {
                    logger.info("\(method) replaces \(plugin.name)'s open dialogue")
                    abandonDialogues()
                    open = openDialogue() ?? .null
                }
                if open.kind != .null {
                    return .failure(
                        RPCError.dialogueInProgress.withMessage("\(method) starts a dialogue, and another is in progress: finish it or reset it first")
                            .withData(["open": open]))
                }
            }
            touchSession()
            let outcome = plugin.handle(method: method, params: bound)
            if spec.startsDialogue, case .success = outcome, openDialogue() != nil {
                challenge.starter = (ObjectIdentifier(plugin), method)
            }
            return outcome
        case .answer(let spec):
            return answer(method: method, spec: spec, params: bound)
        }
    }

    /// What is in progress, if anything: a challenge other than a resting
    /// one, a service call, or a host request (in that order of precedence).
    func openDialogue() -> JSON? {
        if let open = challenge.inProgress { return open.inProgressDescription }
        if let call = calls.oldest {
            return ["flow": .string(call.provider?.name ?? call.caller?.name ?? "host"), "method": .string(call.service)]
        }
        if let request = clientRequests.oldest {
            return ["flow": .string(request.owner.name), "method": .string(request.method)]
        }
        return nil
    }

    /// The flow whose dialogue is open: the one that made the oldest service
    /// call still running (a challenge or host request down that call is its
    /// dialogue's), else the owner of the open challenge or host request.
    /// Nil when nothing is open, or when the host itself made the call.
    func dialogueOwner() -> LoadedPlugin? {
        if let root = calls.roots.first { return root.caller }
        if let open = challenge.inProgress { return open.owner }
        return clientRequests.oldest?.owner
    }

    /// Ends whatever dialogue is in progress (the session it ran under ended,
    /// or its flow starts a new one):
    /// its service calls are cancelled (callers hear -32800), its host
    /// requests are cancelled (the client gets `$/cancelRequest`), and a
    /// challenge other than a resting one closes, its flow told.
    func abandonDialogues() {
        for call in calls.roots { cancel(call, notifyCaller: true) }
        for plugin in plugins { cancelClientRequests(of: plugin) }
        if let open = challenge.closeInProgress() {
            withCall(nil) { open.owner.notify("challenge.cancelled", open.notice) }
        }
    }

    /// Params are borrowed and read-only, but a flow that broke the rule and
    /// wrote into the shared empty object must not leak into the next call.
    private func guardEmptyObject() {
        if !emptyObject.isEmptyObject {
            logger.error("a flow modified the params it borrowed; replaced")
            emptyObject = .object()
        }
    }

    private func answer(method: String, spec: MethodSpec, params: JSON) -> Result<JSON?, RPCError> {
        let open: OpenChallenge
        switch challenge.admit(
            method, answers: spec.answers, ownerDeclares: challenge.current?.owner.declaresMethod(method) ?? false,
            challengeMode: params["challengeMode"]?.intValue)
        {
        case .failure(let error): return .failure(error)
        case .success(let admitted): open = admitted
        }
        let serialBefore = challenge.serial
        touchSession()
        let outcome = withCall(open.call) { open.owner.handle(method: method, params: params) }
        // A refused answer leaves the challenge open; an accepted one closes
        // it unless the flow opened the next one meanwhile (or its call ended).
        if case .success = outcome, challenge.serial == serialBefore, challenge.isOpen(serial: open.serial) {
            challenge.close()
        }
        return outcome
    }

    // MARK: Called by plugins through the host table

    func emit(event: String, params: JSON, from plugin: LoadedPlugin) -> Int32 {
        guard let spec = plugin.declaresEvent(event) else {
            logger.error("flow \(plugin.name) emitted undeclared event \(event); dropped")
            return -4  // FLOWHOST_ERR_UNDECLARED_EVENT
        }
        if spec.isChallenge {
            let serial = challenge.open(
                event: event, challengeMode: params["challengeMode"]?.intValue, owner: plugin, call: calls.active, isResting: spec.isResting)
            if !spec.isResting, options.challengeTimeoutMilliseconds > 0 {
                scheduler.schedule(.challenge(serial), inMilliseconds: options.challengeTimeoutMilliseconds)
            }
        }
        send(.event(name: event, params: params))
        return 0
    }

    /// The open challenge expired: it closes, and its owner hears of it
    /// (`challenge.expired`), in the context of the call it belonged to.
    func expireChallenge(serial: Int) {
        guard let open = challenge.close(serial: serial) else { return }
        logger.info("challenge \(open.event) of flow \(open.owner.name) expired unanswered")
        withCall(open.call) { open.owner.notify("challenge.expired", open.notice) }
    }

    /// A synchronous service call (`call_service`): the result before it returns.
    func callService(_ name: String, params: JSON, from caller: LoadedPlugin?) -> Result<JSON?, RPCError> {
        let provider: ServiceProvider
        let bound: JSON
        switch names.checkedService(name, params: params, from: caller) {
        case .failure(let error): return .failure(error)
        case .success(let found): (provider, bound) = found
        }
        switch provider {
        case .host(_, let body):
            do { return .success(try body(caller?.name ?? "host", bound)) } catch { return .failure(error) }
        case .hostAsync(_, let body):
            // Answered synchronously only if it finishes at once (no client round trip).
            guard let caller else { return .failure(.internalError) }
            var outcome: Result<JSON?, RPCError>?
            let id = startCall(name, caller: caller, provider: nil, synchronous: true) { outcome = $0 }
            withCall(id) { body(caller, bound) { [self] result in _ = completeCall(id, result) } }
            if let outcome { return outcome }
            if let call = calls[id] { cancel(call, notifyCaller: false) }
            return .failure(
                RPCError(.internalError, message: "service \(name) answers later; call it with call_service_async", data: ["service": .string(name)]))
        case .flow(let plugin, _) where !plugin.servesAsynchronously:
            return plugin.callService(name, params: bound)
        case .flow(let plugin, _):
            // A provider that serves asynchronously answers a synchronous
            // call only if it finishes at once.
            var outcome: Result<JSON?, RPCError>?
            let id = startCall(name, caller: caller, provider: plugin, synchronous: true) { outcome = $0 }
            withCall(id) { plugin.serve(name, params: bound, callID: id) }
            if let outcome { return outcome }
            if let call = calls[id] { cancel(call, notifyCaller: false) }
            return .failure(
                RPCError(.internalError, message: "service \(name) answers later; call it with call_service_async", data: ["service": .string(name)]))
        }
    }

    /// Offers a service to every flow. Host services are registered before
    /// plugins are installed, so a flow cannot take a host service's name.
    /// `params`, when given, is checked before `body` runs; `body` learns
    /// the calling flow's name (records are kept per flow, for example).
    public func registerService(
        _ name: String, params: [ParamSpec]? = nil, _ body: @escaping (_ caller: String, JSON) throws(ServiceError) -> JSON?
    ) {
        names.addHostService(name, .host(params: params) { caller, json throws(RPCError) in
            do throws(ServiceError) { return try body(caller, json) } catch { throw error.rpcError }
        })
        discoverDocument = nil
    }

    /// Offers a host service that may finish later: `body` gets the calling
    /// flow, the checked params, and `finish`, to call exactly once. It may
    /// send host requests for the caller (`requestFromClient`); they belong
    /// to the call and end with it.
    public func registerAsyncService(
        _ name: String, params: [ParamSpec]? = nil,
        _ body: @escaping (_ caller: LoadedPlugin, JSON, _ finish: @escaping (Result<JSON?, ServiceError>) -> Void) -> Void
    ) {
        names.addHostService(name, .hostAsync(params: params) { caller, json, finish in
            body(caller, json) { result in finish(result.mapError(\.rpcError)) }
        })
        discoverDocument = nil
    }

    /// A host request to the client on behalf of a flow (a host service
    /// that needs the client's platform). `completion` runs once.
    public func requestFromClient(
        _ method: String, _ params: JSON, for caller: LoadedPlugin, completion: @escaping (Result<JSON, ServiceError>) -> Void
    ) {
        let sent = sendClientRequest(method: method, params: params, timeoutMilliseconds: 0, from: caller) { outcome in
            completion(outcome.mapError { ServiceError($0.code, message: $0.message, data: $0.data) })
        }
        if !sent { completion(.failure(ServiceError(.requestTimedOut, message: "too many requests in flight"))) }
    }

    /// The client's `device` from `initialize` (deviceID, keyCustody, …).
    public var clientDevice: JSON { hello?.device ?? .object() }

    /// The facts from `initialize` that flows may read.
    func sessionInfo() -> JSON { hello?.infoForFlows ?? .object() }
}
