import FlowJSON
import JSONRPC

extension HostEngine {
    /// Sends a request to the client; `completion` runs exactly once, on the
    /// loop thread, with the client's answer, a timeout, or a cancellation.
    /// Refused (nothing sent, `completion` not called) when
    /// `maxClientRequestsInFlight` requests already wait.
    func sendClientRequest(
        method: String, params: JSON, timeoutMilliseconds: UInt32, from plugin: LoadedPlugin,
        completion: @escaping (Result<JSON, RPCError>) -> Void
    ) -> Bool {
        guard pendingClientRequests.count < options.maxClientRequestsInFlight else {
            logger.warning("flow \(plugin.name): host request \(method) refused, \(options.maxClientRequestsInFlight) already in flight")
            return false
        }
        let id = "fh-\(nextClientRequestNumber)"
        nextClientRequestNumber += 1
        let timeout = timeoutMilliseconds == 0 ? options.clientRequestTimeoutMilliseconds : timeoutMilliseconds
        let deadline = MonotonicClock.nowMilliseconds() + UInt64(timeout)
        pendingClientRequests[id] = PendingClientRequest(method: method, owner: plugin, deadline: deadline, completion: completion)
        deadlines.insert(id, at: deadline)
        logger.debug("host request \(id) \(method) for flow \(plugin.name)")
        send(.request(id: .string(id), method: method, params: params))
        return true
    }

    func routeClientResponse(id: JSON, result: JSON?, error: JSON?) {
        guard let key = id.stringValue, let pending = pendingClientRequests.removeValue(forKey: key) else {
            logger.warning("response to unknown request id \(LogLine.clip(id.serialized())); ignored")
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

    /// Cancels every request `plugin` is waiting on (its dialogue was reset):
    /// the client is told with `$/cancelRequest`, the flow's completion gets
    /// -32800, and a late answer is then ignored like any unknown id.
    /// Returns how many were cancelled.
    @discardableResult
    func cancelClientRequests(of plugin: LoadedPlugin) -> Int {
        let mine = pendingClientRequests.filter { $0.value.owner === plugin }.sorted { $0.key < $1.key }
        for (id, pending) in mine {
            pendingClientRequests[id] = nil
            send(.event(name: "$/cancelRequest", params: ["id": .string(id)]))
            pending.completion(.failure(RPCError.requestCancelled.withData(["method": .string(pending.method)])))
        }
        return mine.count
    }

    /// The earliest moment a timer must fire, if any.
    public var nextDeadline: UInt64? {
        deadlines.dropStale { id, deadline in pendingClientRequests[id]?.deadline != deadline }
        return deadlines.earliest
    }

    /// Fails every host request whose time is up, earliest first.
    public func fireTimers(now: UInt64 = MonotonicClock.nowMilliseconds()) {
        while let (deadline, id) = deadlines.popDue(now: now) {
            guard let pending = pendingClientRequests[id], pending.deadline == deadline else { continue }
            pendingClientRequests[id] = nil
            logger.info("host request \(id) \(pending.method) timed out")
            send(.event(name: "$/cancelRequest", params: ["id": .string(id)]))
            pending.completion(.failure(RPCError.requestTimedOut.withData(["method": .string(pending.method)])))
        }
    }
}
