import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// The host's requests to the client, made for flows (`send_request`) and
/// for host services (`ConnectedClient.request`): each belongs to the call that
/// was active, and its completion runs exactly once.
extension ServiceRouter {
    /// Sends a request to the client; `completion` runs exactly once, on the
    /// loop thread, with the client's answer, a timeout, or a cancellation.
    /// Refused (nothing sent, `completion` not called) when
    /// `maxClientRequestsInFlight` requests already wait.
    func sendClientRequest(
        method: String, params: JSON, timeoutMilliseconds: UInt32, from plugin: LoadedPlugin,
        completion: @escaping (Result<JSON, FlowHostError>) -> Void
    ) -> Bool {
        guard clientRequests.count < options.maxClientRequestsInFlight else {
            logger.warning("flow \(plugin.name): host request \(method) refused, \(options.maxClientRequestsInFlight) already in flight")
            return false
        }
        let id = clientRequests.nextID
        let timeout = timeoutMilliseconds == 0 ? options.clientRequestTimeoutMilliseconds : timeoutMilliseconds
        let deadline = scheduler.schedule(.request(id), inMilliseconds: UInt64(timeout))
        clientRequests.add(method: method, owner: plugin, call: calls.active, deadline: deadline, completion: completion)
        logger.debug("host request \(id) \(method) for flow \(plugin.name)")
        output.send(.request(id: .string(id), method: method, params: params))
        return true
    }

    /// The client answered a host request: its completion runs. An answer
    /// the host waits on is client activity on `session`.
    func routeClientResponse(id: JSON, result: JSON?, error: JSON?, session: SessionRuntime) {
        guard let key = id.stringValue, let pending = clientRequests.remove(key) else {
            logger.warning("response to unknown request id \(LogLine.clip(id.serialized())); ignored")
            return
        }
        session.touch()
        withCall(pending.call) {
            if let result {
                pending.completion(.success(result))
            } else {
                let code = error?["code"]?.intValue.map(ErrorCode.init(rawValue:)) ?? .internalError
                let message = error?["message"]?.stringValue ?? "client error"
                // Why the client could not (cancelled, failed, unavailable): the operator can tell them apart.
                let reason = error?["data"]?["reason"]?.stringValue ?? "none given"
                logger.info("the client answered \(pending.method) with an error (reason: \(LogLine.clip(reason)))")
                // Marked as the client's: its code, whatever its sign, is no word of the host's or the SDK's.
                pending.completion(.failure(FlowHostError(code, message: message, data: error?["data"], answeredByClient: true)))
            }
        }
    }

    /// Cancels every request `plugin` is waiting on (its dialogue was reset):
    /// the client is told with `$/cancelRequest`, the flow's completion gets
    /// -32800, and a late answer is then ignored like any unknown id.
    /// Returns how many were cancelled.
    @discardableResult
    func cancelClientRequests(of plugin: LoadedPlugin) -> Int {
        let mine = clientRequests.remove { $0.owner === plugin }
        withdraw(mine, FlowHostError.requestCancelled)
        return mine.count
    }

    /// Request `id` ran out its time: withdrawn with -32003.
    func timeOut(_ id: String) {
        guard let pending = clientRequests.remove(id) else { return }
        logger.info("host request \(id) \(pending.method) timed out")
        withdraw([pending], FlowHostError.requestTimedOut)
    }

    /// Gives up on requests already taken from the table: the client is told
    /// (`$/cancelRequest`), and each completion runs once with `error`, in
    /// the context of the call it belonged to.
    func withdraw(_ requests: [PendingClientRequest], _ error: FlowHostError) {
        for pending in requests {
            output.send(.event(name: "$/cancelRequest", params: ["id": .string(pending.id)]))
            withCall(pending.call) { pending.completion(.failure(error.withData(["method": .string(pending.method)]))) }
        }
    }
}
