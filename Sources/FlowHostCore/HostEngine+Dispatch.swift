import FlowJSON
import JSONRPC

extension HostEngine {
    /// Runs one call (request or notification) and returns its outcome.
    func dispatch(method: String, params: JSON?) -> Result<JSON?, RPCError> {
        if method == "exit" {
            // LSP's convention: exit without a prior shutdown is an error exit.
            exitStatus = lifecycle == .shutDown ? 0 : 1
            return .success(nil)
        }
        guard let route = methods[method] else {
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
        let bound: JSON
        do { bound = try ParamBinder.bind(params, to: route.spec.params, empty: emptyObject) } catch { return .failure(error) }
        defer { if bound === emptyObject { guardEmptyObject() } }

        switch route {
        case .builtin(_, let body):
            do { return .success(try body(bound)) } catch { return .failure(error) }
        case .flow(let plugin, _):
            return plugin.handle(method: method, params: bound)
        case .answer(let spec):
            return answer(method: method, spec: spec, params: bound)
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
        guard let open = openChallenge else {
            return .failure(RPCError.noOpenChallenge.withMessage("No open challenge for \(method)"))
        }
        let openDescription: JSON = [
            "event": .string(open.event), "challengeMode": .optional(open.challengeMode, JSON.int), "flow": .string(open.owner.name),
        ]
        guard spec.answers.contains(open.event), open.owner.declaresMethod(method) else {
            return .failure(
                RPCError.challengeMismatch.withMessage("\(method) does not answer the open challenge \(open.event)")
                    .withData(["open": openDescription]))
        }
        if let given = params["challengeMode"]?.intValue, let expected = open.challengeMode, given != expected {
            return .failure(
                RPCError.challengeMismatch.withMessage("challengeMode \(given) does not match the open challenge's \(expected)")
                    .withData(["open": openDescription]))
        }
        let serialBefore = challengeSerial
        let outcome = open.owner.handle(method: method, params: params)
        // A refused answer leaves the challenge open; an accepted one closes
        // it unless the flow opened the next one meanwhile.
        if case .success = outcome, challengeSerial == serialBefore {
            openChallenge = nil
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
            openChallenge = OpenChallenge(event: event, challengeMode: params["challengeMode"]?.intValue, owner: plugin)
            challengeSerial += 1
        }
        send(.event(name: event, params: params))
        return 0
    }

    func callService(_ name: String, params: JSON) -> Result<JSON?, RPCError> {
        switch services[name] {
        case nil:
            return .failure(.unknownService(name))
        case .host(let body):
            do { return .success(try body(params)) } catch { return .failure(error) }
        case .flow(let plugin):
            return plugin.callService(name, params: params)
        }
    }

    /// Offers a service to every flow. Host services are registered before
    /// plugins are installed, so a flow cannot take a host service's name.
    public func registerService(_ name: String, _ body: @escaping (JSON) throws(RPCError) -> JSON?) {
        precondition(services[name] == nil, "service \(name) registered twice")
        services[name] = .host(body)
    }

    /// The facts from `initialize` that flows may read.
    func sessionInfo() -> JSON {
        guard let session else { return .object() }
        let info = JSON.object()
        info["device"] = session["device"]
        info["clientInfo"] = session["clientInfo"]
        return info
    }
}
