import FlowJSON
import JSONRPC

extension HostEngine {
    /// Sends a request to the client; `completion` runs exactly once, on the
    /// loop thread, with the client's answer or a timeout.
    func sendClientRequest(
        method: String, params: JSON, timeoutMilliseconds: UInt32, from plugin: LoadedPlugin,
        completion: @escaping (Result<JSON, RPCError>) -> Void
    ) {
        let id = "fh-\(nextClientRequestNumber)"
        nextClientRequestNumber += 1
        let timeout = timeoutMilliseconds == 0 ? options.clientRequestTimeoutMilliseconds : timeoutMilliseconds
        pendingClientRequests[id] = PendingClientRequest(
            method: method, deadline: MonotonicClock.nowMilliseconds() + UInt64(timeout), completion: completion)
        logger.debug("host request \(id) \(method) for flow \(plugin.name)")
        send(.request(id: .string(id), method: method, params: params))
    }

    func routeClientResponse(id: JSON, result: JSON?, error: JSON?) {
        guard let key = id.stringValue, let pending = pendingClientRequests.removeValue(forKey: key) else {
            logger.warning("response to unknown request id \(id.serialized()); ignored")
            return
        }
        if let result {
            pending.completion(.success(result))
        } else {
            let code = error?["code"]?.intValue ?? -32603
            let message = error?["message"]?.stringValue ?? "client error"
            pending.completion(.failure(RPCError(code: code, message: message, data: error?["data"])))
        }
    }

    /// The earliest moment a timer must fire, if any.
    public var nextDeadline: UInt64? {
        pendingClientRequests.values.lazy.map(\.deadline).min()
    }

    /// Fails every host request whose time is up.
    public func fireTimers(now: UInt64 = MonotonicClock.nowMilliseconds()) {
        let expired = pendingClientRequests.filter { $0.value.deadline <= now }.sorted { $0.key < $1.key }
        for (id, pending) in expired {
            pendingClientRequests[id] = nil
            logger.info("host request \(id) \(pending.method) timed out")
            pending.completion(.failure(RPCError.requestTimedOut.withData(["method": .string(pending.method)])))
        }
    }
}
