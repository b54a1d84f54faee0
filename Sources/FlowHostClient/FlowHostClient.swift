import Foundation

/// A client for `flowhost`: spawns the host, speaks line-delimited JSON-RPC
/// 2.0 on its stdin/stdout, and offers requests as `async` functions, events
/// as an `AsyncSequence` of typed `FlowHostEvent`s, and the host's own
/// requests (`platform/…`) to registered handlers.
///
/// ```swift
/// let host = try FlowHostClient(executable: "/usr/local/bin/flowhost")
/// host.onRequest("platform/authenticateLDA") { _ in ["authenticated": true] }
/// try await host.initialize(device: ["deviceID": "laptop", "deviceName": "Laptop", "ldaCapabilities": [1]])
/// for await event in host.events() { if case .getUser = event { try await host.setUser(userName: "alice") } }
/// ```
///
/// Unchecked Sendable: every mutable member is in `state`, touched only
/// under `lock`; the writer is serialised by `writeLock`.
public final class FlowHostClient: @unchecked Sendable {
    public typealias RequestHandler = @Sendable (JSONValue) async throws -> JSONValue

    /// An error answer's reason, for a handler to throw (spec: `data.reason`).
    public struct HandlerError: Error, Sendable {
        public enum Reason: String, Sendable { case cancelled, failed, unavailable }
        public let reason: Reason
        public let message: String
        public init(_ reason: Reason, _ message: String = "") { self.reason = reason; self.message = message }
    }

    struct State {
        var nextID: Int64 = 1
        var pending: [Int64: (method: String, continuation: CheckedContinuation<JSONValue, Error>)] = [:]
        var handlers: [String: RequestHandler] = [:]
        /// The host's requests being handled, by id: cancelled on `$/cancelRequest`.
        var handling: [String: Task<Void, Never>] = [:]
        /// Every event received, and how many `nextEvent` has taken.
        var received: [FlowHostEvent] = []
        var taken = 0
        var waiters: [UUID: (name: String?, continuation: CheckedContinuation<FlowHostEvent, Error>)] = [:]
        var subscribers: [UUID: AsyncStream<FlowHostEvent>.Continuation] = [:]
        var exited = false
    }

    /// The spawned host; nil for a host behind a socket.
    let process: Process?
    /// The connected socket of a host behind one (owned by `input`).
    let socket: Int32?
    let input: FileHandle
    let lock = NSLock()
    let writeLock = NSLock()
    var state = State()
    let encoder = JSONEncoder()

    /// Starts `executable` with `arguments`; stderr goes to `stderr` (the
    /// parent's by default: the host logs there).
    public init(executable: String, arguments: [String] = [], environment: [String: String]? = nil, stderr: FileHandle? = nil) throws {
        let process = Process()
        self.process = process
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let toHost = Pipe(), fromHost = Pipe()
        process.standardInput = toHost
        process.standardOutput = fromHost
        if let stderr { process.standardError = stderr }
        do { try process.run() } catch { throw FlowHostClientError.launchFailed("\(error)") }
        socket = nil
        input = toHost.fileHandleForWriting
        startReading(fromHost.fileHandleForReading)
    }

    /// A host behind a Unix-domain stream socket (a socket unit with
    /// `Accept=yes`, spec §8), driven as a spawned host is. No exit status
    /// crosses a socket: `close` and `waitForExit` give nil.
    public convenience init(connectingTo socketPath: String) throws {
        self.init(connection: try UnixSocket.connect(socketPath))
    }

    /// A host on `connection`, a connected stream socket (Unix-domain, or TCP
    /// to a terminator the caller trusts) that the client now owns.
    public init(connection: Int32) {
        process = nil
        socket = connection
        input = FileHandle(fileDescriptor: connection, closeOnDealloc: true)
        startReading(FileHandle(fileDescriptor: connection, closeOnDealloc: false))
    }

    private func startReading(_ output: FileHandle) {
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let reader = Thread { [weak self] in Self.readLines(from: output) { self?.receive($0) } ; self?.hostClosed() }
        reader.name = "flowhost-client-reader"
        reader.start()
    }

    deinit {
        if let process, process.isRunning { process.terminate() }
    }

    // MARK: Requests

    /// Sends a request and waits for its result.
    public func request(_ method: String, _ params: JSONValue? = nil, timeout: Duration = .seconds(10)) async throws -> JSONValue {
        let id: Int64 = lock.withLock { defer { state.nextID += 1 }; return state.nextID }
        var message: [String: JSONValue] = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { message["params"] = params }
        let frame = try encoder.encode(JSONValue.object(message))
        let deadline = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled, let self else { return }
            let waiting = self.lock.withLock { self.state.pending.removeValue(forKey: id) }
            waiting?.continuation.resume(throwing: FlowHostClientError.timedOut(method: method))
        }
        defer { deadline.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let exited = lock.withLock {
                if state.exited { return true }
                state.pending[id] = (method, continuation)
                return false
            }
            if exited { continuation.resume(throwing: FlowHostClientError.hostExited); return }
            do { try write(frame) } catch {
                let waiting = lock.withLock { state.pending.removeValue(forKey: id) }
                waiting?.continuation.resume(throwing: FlowHostClientError.hostExited)
            }
        }
    }

    /// Sends a notification (no answer).
    public func notify(_ method: String, _ params: JSONValue? = nil) throws {
        var message: [String: JSONValue] = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { message["params"] = params }
        try write(try encoder.encode(JSONValue.object(message)))
    }

    /// `initialize` with this device; the result names the device and the flows.
    @discardableResult
    public func initialize(device: JSONValue, clientName: String = "FlowHostClient.swift", timeout: Duration = .seconds(10)) async throws -> JSONValue {
        try await request("initialize", [
            "protocolVersion": "1.1", "clientInfo": ["name": .string(clientName), "version": "1"], "device": device,
        ], timeout: timeout)
    }

    /// Answers the host's requests of `method` (`platform/authenticateLDA`, …).
    /// The handler's task is cancelled when the host gives up (`$/cancelRequest`);
    /// throwing `HandlerError` answers with that reason.
    public func onRequest(_ method: String, _ handler: @escaping RequestHandler) {
        lock.withLock { state.handlers[method] = handler }
    }

    /// `shutdown`, then `exit`; returns the host's exit status (nil for a
    /// host behind a socket).
    @discardableResult
    public func close(timeout: Duration = .seconds(10)) async throws -> Int32? {
        _ = try await request("shutdown", timeout: timeout)
        try notify("exit")
        // A socket's reading half stays open for what the host still sends.
        if let socket { UnixSocket.endWriting(socket) } else { try? input.close() }
        return await waitForExit(timeout: timeout)
    }

    /// The host's exit status once it ends (it is terminated after `timeout`);
    /// for a host behind a socket, nil once it has closed the connection (it
    /// is cut after `timeout`).
    public func waitForExit(timeout: Duration = .seconds(10)) async -> Int32? {
        let clock = ContinuousClock(), end = clock.now.advanced(by: timeout)
        guard let process else {
            while !lock.withLock({ state.exited }) && clock.now < end { try? await Task.sleep(for: .milliseconds(5)) }
            if let socket, !lock.withLock({ state.exited }) { UnixSocket.cut(socket) }
            return nil
        }
        while process.isRunning && clock.now < end { try? await Task.sleep(for: .milliseconds(5)) }
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        return process.terminationStatus
    }

    // MARK: Events

    /// Every event from now on, in order (each call gives its own sequence;
    /// it ends when the host does).
    public func events() -> AsyncStream<FlowHostEvent> {
        AsyncStream { continuation in
            let key = UUID()
            let exited = lock.withLock {
                if !state.exited { state.subscribers[key] = continuation }
                return state.exited
            }
            if exited { continuation.finish() }
            continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.state.subscribers.removeValue(forKey: key) } }
        }
    }

    /// The next event not yet taken (of `name`, when given); events of other
    /// names stay for a later call. Throws on timeout or when the host ends.
    public func nextEvent(_ name: String? = nil, timeout: Duration = .seconds(10)) async throws -> FlowHostEvent {
        let key = UUID()
        let deadline = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled, let self else { return }
            let waiter = self.lock.withLock { self.state.waiters.removeValue(forKey: key) }
            waiter?.continuation.resume(throwing: FlowHostClientError.timedOut(method: name ?? "an event"))
        }
        defer { deadline.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let outcome: Result<FlowHostEvent, Error>? = lock.withLock {
                if let event = takeUnread(name) { return .success(event) }
                if state.exited { return .failure(FlowHostClientError.hostExited) }
                state.waiters[key] = (name, continuation)
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Under `lock`: takes the first unread event of `name`, keeping the order of the rest.
    func takeUnread(_ name: String?) -> FlowHostEvent? {
        guard let index = state.received[state.taken...].firstIndex(where: { name == nil || $0.name == name }) else { return nil }
        let event = state.received.remove(at: index)
        state.received.insert(event, at: state.taken)
        state.taken += 1
        return event
    }
}
