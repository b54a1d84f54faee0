import Foundation

/// The reader thread's side: frames from the host, routed to waiting
/// requests, the event queue and the client's own request handlers.
extension FlowHostClient {
    static func readLines(from handle: FileHandle, _ deliver: (Data) -> Void) {
        var buffer = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                if !line.isEmpty { deliver(Data(line)) }
            }
        }
    }

    func receive(_ line: Data) {
        guard case .object(let message)? = try? JSONDecoder().decode(JSONValue.self, from: line) else {
            failAll(FlowHostClientError.malformedFrame(String(decoding: line, as: UTF8.self)))
            return
        }
        let params = message["params"] ?? .object([:])
        switch (message["id"], message["method"]?.stringValue) {
        case (let id?, let method?):
            serve(id: id, method: method, params: params)
        case (.int(let id)?, nil):
            let waiting = lock.withLock { state.pending.removeValue(forKey: id) }
            if let error = message["error"] {
                waiting?.continuation.resume(throwing: FlowHostClientError.rpc(
                    code: error["code"]?.intValue ?? 0, message: error["message"]?.stringValue ?? "", data: error["data"]))
            } else {
                waiting?.continuation.resume(returning: message["result"] ?? .null)
            }
        case (nil, "$/cancelRequest"?):
            let key = params["id"].map(Self.key) ?? ""
            lock.withLock { state.handling.removeValue(forKey: key) }?.cancel()
            deliver(FlowHostEvent(name: "$/cancelRequest", params: params))
        case (nil, let method?):
            deliver(FlowHostEvent(name: method, params: params))
        default:
            break
        }
    }

    func deliver(_ event: FlowHostEvent) {
        let (waiter, subscribers) = lock.withLock { () -> (CheckedContinuation<FlowHostEvent, Error>?, [AsyncStream<FlowHostEvent>.Continuation]) in
            state.received.append(event)
            let match = state.waiters.first { $0.value.name == nil || $0.value.name == event.name }
            var waiter: CheckedContinuation<FlowHostEvent, Error>?
            if let match, takeUnread(match.value.name) != nil {
                state.waiters.removeValue(forKey: match.key)
                waiter = match.value.continuation
            }
            return (waiter, Array(state.subscribers.values))
        }
        waiter?.resume(returning: event)
        for subscriber in subscribers { subscriber.yield(event) }
    }

    func serve(id: JSONValue, method: String, params: JSONValue) {
        let key = Self.key(id)
        let handler = lock.withLock { state.handlers[method] }
        // Recorded before the task can finish: the task takes `lock` to remove itself.
        lock.lock()
        defer { lock.unlock() }
        state.handling[key] = Task { [weak self] in
            var reply: [String: JSONValue] = ["jsonrpc": "2.0", "id": id]
            do {
                guard let handler else { throw HandlerError(.unavailable, "no handler for \(method)") }
                reply["result"] = try await handler(params)
            } catch let error as HandlerError {
                reply["error"] = ["code": .int(Int64(ErrorCode.requestTimedOut.rawValue)), "message": .string(error.message.isEmpty ? error.reason.rawValue : error.message),
                                  "data": ["reason": .string(error.reason.rawValue)]]
            } catch is CancellationError {
                reply["error"] = ["code": .int(Int64(ErrorCode.requestCancelled.rawValue)), "message": "cancelled", "data": ["reason": "cancelled"]]
            } catch {
                reply["error"] = ["code": .int(Int64(ErrorCode.requestTimedOut.rawValue)), "message": .string("\(error)"), "data": ["reason": "failed"]]
            }
            guard let self else { return }
            let wasCancelled = self.lock.withLock { self.state.handling.removeValue(forKey: key) == nil }
            // The host gave up on it: it no longer waits for an answer.
            if wasCancelled && Task.isCancelled { return }
            try? self.write(try self.encoder.encode(JSONValue.object(reply)))
        }
    }

    func hostClosed() {
        let (pending, waiters, subscribers) = lock.withLock {
            state.exited = true
            defer { state.pending = [:]; state.waiters = [:]; state.subscribers = [:] }
            return (Array(state.pending.values), Array(state.waiters.values), Array(state.subscribers.values))
        }
        for request in pending { request.continuation.resume(throwing: FlowHostClientError.hostExited) }
        for waiter in waiters { waiter.continuation.resume(throwing: FlowHostClientError.hostExited) }
        for subscriber in subscribers { subscriber.finish() }
    }

    func failAll(_ error: FlowHostClientError) {
        let pending = lock.withLock { defer { state.pending = [:] }; return Array(state.pending.values) }
        for request in pending { request.continuation.resume(throwing: error) }
    }

    func write(_ frame: Data) throws {
        try writeLock.withLock {
            try input.write(contentsOf: frame + [0x0A])
        }
    }

    static func key(_ id: JSONValue) -> String {
        switch id {
        case .int(let value): return "i\(value)"
        case .string(let value): return "s\(value)"
        default: return "\(id)"
        }
    }
}
