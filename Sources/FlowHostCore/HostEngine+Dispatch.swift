import CFlowHostABI
import FlowHostVocabulary
import FlowJSON
import JSONRPC

extension HostEngine {
    /// Runs one call (request or notification) and returns its outcome.
    func dispatch(method: String, params: JSON?) -> Result<JSON?, FlowHostError> {
        if method == "exit" {
            // LSP's convention: exit without a prior shutdown is an error exit.
            requestedExit = lifecycle == .shutDown ? 0 : 1
            return .success(nil)
        }
        guard let route = names[method: method] else {
            return .failure(FlowHostError.methodNotFound.withMessage("Method not found: \(method)").withData(["method": .string(method)]))
        }
        switch lifecycle {
        case .awaitingInitialize where method != "initialize" && method != "rpc.discover":
            return .failure(FlowHostError.notInitialized)
        case .shutDown:
            return .failure(FlowHostError.shuttingDown)
        default:
            break
        }
        dialogues.forgetEndedStarter()
        let bound: JSON
        do { bound = try ParamBinder.bind(params, to: route.spec.params, empty: emptyObject) } catch { return .failure(error) }
        defer { if bound === emptyObject { guardEmptyObject() } }

        switch route {
        case .builtin(_, let body):
            do { return .success(try body(bound)) } catch { return .failure(error) }
        case .flow(let plugin, let spec):
            if spec.startsDialogue, let refusal = dialogues.admitStart(method, by: plugin) { return .failure(refusal) }
            session.touch()
            let outcome = plugin.handle(method: method, params: bound)
            if spec.startsDialogue, case .success = outcome { dialogues.started(method, by: plugin) }
            return outcome
        case .answer(let spec):
            return dialogues.answer(method: method, spec: spec, params: bound, session: session)
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

    // MARK: Called by plugins through the host table

    func emit(event: String, params: JSON, from plugin: LoadedPlugin) -> Int32 {
        guard let spec = plugin.declaresEvent(event) else {
            logger.error("flow \(plugin.name) emitted undeclared event \(event); dropped")
            return FLOWHOST_ERR_UNDECLARED_EVENT
        }
        // Checked before anything reaches the client (spec §9, "Event schemas").
        if let schema = plugin.eventSchema(spec), let violation = schema.violation(of: params) {
            logger.error("flow \(plugin.name) emitted event \(event) that its declared schema refuses (\(violation)); not sent")
            return FLOWHOST_ERR_INVALID_ARGUMENT
        }
        language.translateDefaults(in: params)
        if spec.isChallenge { dialogues.openChallenge(event, params: params, owner: plugin, spec: spec) }
        send(.event(name: event, params: params))
        return FLOWHOST_OK
    }

    /// Offers a service to every flow. Host services are registered before
    /// plugins are installed, so a flow cannot take a host service's name.
    /// `params`, when given, is checked before `body` runs; `body` learns
    /// the calling flow's name (records are kept per flow, for example).
    public func registerService(
        _ name: String, params: [ParamSpec]? = nil, _ body: @escaping (_ caller: String, JSON) throws(FlowHostError) -> JSON?
    ) {
        names.addHostService(name, .host(params: params, body))
        discoverDocument = nil
    }

    /// Offers a host service that may finish later: `body` gets the calling
    /// flow, the checked params, and `finish`, to call exactly once. It may
    /// send host requests for the caller (`client.request`); they belong
    /// to the call and end with it.
    public func registerAsyncService(
        _ name: String, params: [ParamSpec]? = nil,
        _ body: @escaping (_ caller: LoadedPlugin, JSON, _ finish: @escaping (Result<JSON?, FlowHostError>) -> Void) -> Void
    ) {
        names.addHostService(name, .hostAsync(params: params, body))
        discoverDocument = nil
    }
}
