import FlowHostCore
import FlowHostVocabulary
import FlowJSON
import JSONRPC

#if canImport(Glibc)
import Glibc
#endif

/// The scripted client: what a client process would send and read, as calls.
extension TestHost {
    /// `initialize`, with this device. Returns its result (the flows, the
    /// device id the host kept).
    @discardableResult
    public func initialize(device: JSON = ["deviceID": "test-device", "deviceName": "Test device", "ldaCapabilities": []]) throws -> JSON {
        do {
            return try request(
                "initialize", ["protocolVersion": "1.1", "clientInfo": ["name": "FlowHostTesting", "version": "1"], "device": device])
        } catch {
            throw TestHostError("initialize failed: \(error.message)")
        }
    }

    /// Calls `method` and returns its result, or throws the error the host
    /// answered with (its code, message and data, as a client sees them).
    /// Everything the call set off (events, host requests, service calls)
    /// has run when it returns.
    @discardableResult
    public func request(_ method: String, _ params: JSON? = nil) throws(FlowHostError) -> JSON {
        let id = send(method, params)
        guard let answer = responses.removeValue(forKey: id) else {
            throw FlowHostError(.internalError, message: "\(method) was not answered; a flow that answers later is read with send(_:_:) and response(to:)")
        }
        return try answer.get()
    }

    /// Sends a request without waiting for its answer; `response(to:)` reads it.
    @discardableResult
    public func send(_ method: String, _ params: JSON? = nil) -> Int {
        let id = nextRequestID
        nextRequestID += 1
        let frame: JSON = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { frame["params"] = params }
        deliver(frame)
        return id
    }

    /// The answer to request `id`, once it has come (nil before).
    public func response(to id: Int) -> Result<JSON, FlowHostError>? { responses.removeValue(forKey: id) }

    /// Sends a notification (no answer expected), such as `exit`.
    public func notify(_ method: String, _ params: JSON? = nil) {
        let frame: JSON = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { frame["params"] = params }
        deliver(frame)
    }

    /// The oldest event not read yet, if `name` is nil or it has that name;
    /// events of other names before it are passed over. Nil when none came.
    public func nextEvent(_ name: String? = nil) -> TestEvent? {
        guard let index = eventQueue.firstIndex(where: { name == nil || $0.name == name }) else { return nil }
        let event = eventQueue[index]
        eventQueue.removeSubrange(...index)
        return event
    }

    /// Like `nextEvent`, but a missing event is an error that lists what came instead.
    public func expectEvent(_ name: String) throws -> TestEvent {
        if let event = nextEvent(name) { return event }
        throw TestHostError("no \(name) event; unread: \(eventQueue.map(\.name))")
    }

    /// Answers every later host request of `method` with `handler`'s result
    /// (`platform/authenticateLDA` → `{"authenticated": true}`, say).
    public func answer(_ method: String, with handler: @escaping (JSON) -> Result<JSON, FlowHostError>) {
        answers[method] = handler
    }

    public func answer(_ method: String, result: JSON) { answer(method) { _ in .success(result) } }

    /// Replies to a host request no handler took.
    public func reply(to request: TestHostRequest, with answer: Result<JSON, FlowHostError>) {
        pendingHostRequests.removeAll { $0.id.serialized() == request.id.serialized() }
        deliver(Self.response(id: request.id, answer))
    }

    // MARK: The wire

    func deliver(_ frame: JSON) {
        let bytes = Array((frame.serialized() + "\n").utf8)
        bytes.withUnsafeBytes { input.push($0) }
        pump()
    }

    /// Runs what another host on the same store (`TestHost(beside:)`) has
    /// rung the change feed for, as the host's loop does between frames.
    public func receiveFeed() { pump() }

    /// Reads what the host wrote until it has nothing more to say: answers,
    /// events, and host requests (answered at once where a handler is
    /// set). Then delivers what the change feed rang for.
    func pump() {
        // Bounded: a flow that keeps answering its own events must not hang the test.
        for _ in 0..<1024 {
            try? engine.flush()
            let lines = sink.lines
            sink.reset()
            for line in lines { route(line) }
            if feedRang() {
                engine.woke()
                continue
            }
            try? engine.flush()
            if sink.lines.isEmpty { return }
        }
    }

    private func feedRang() -> Bool {
        guard let fd = engine.wakeDescriptor else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) == 1
    }

    private func route(_ line: String) {
        guard let frame = try? JSON.parse(line) else { return }
        let method = frame["method"]?.stringValue
        switch (method, frame["id"]) {
        case (nil, let id?):
            guard let id = id.intValue else { return }
            if let error = frame["error"] {
                responses[id] = .failure(
                    FlowHostError(ErrorCode(rawValue: error["code"]?.intValue ?? ErrorCode.internalError.rawValue),
                        message: error["message"]?.stringValue ?? "", data: error["data"]))
            } else {
                responses[id] = .success(frame["result"] ?? .null)
            }
        case (let method?, let id?):
            let request = TestHostRequest(method: method, params: frame["params"] ?? .null, id: id)
            if let handler = answers[method] {
                deliver(Self.response(id: id, handler(request.params)))
            } else {
                pendingHostRequests.append(request)
            }
        case (let method?, nil):
            let event = TestEvent(name: method, params: frame["params"] ?? .null)
            events.append(event)
            eventQueue.append(event)
        default:
            return
        }
    }

    static func response(id: JSON, _ answer: Result<JSON, FlowHostError>) -> JSON {
        switch answer {
        case .success(let result): return ["jsonrpc": "2.0", "id": id, "result": result]
        case .failure(let error):
            let body: JSON = ["code": .int(error.code.rawValue), "message": .string(error.message)]
            if let data = error.data { body["data"] = data }
            return ["jsonrpc": "2.0", "id": id, "error": body]
        }
    }
}
