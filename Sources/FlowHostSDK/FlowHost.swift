import CFlowHostABI
import CJansson
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The host as a Swift flow sees it: a safe face over `flowhost_host_v1`.
///
/// Use it on the loop thread only (the host refuses other threads).
public final class FlowHost {
    private let table: UnsafePointer<flowhost_host_v1>
    private let context: OpaquePointer
    /// Timer callbacks not yet fired, released when cancelled.
    private var timerBoxes: [UInt64: UnsafeMutableRawPointer] = [:]

    init(table: UnsafePointer<flowhost_host_v1>, context: OpaquePointer) {
        self.table = table
        self.context = context
    }

    public enum LogLevel: Int32 { case debug = 0, info = 1, warning = 2, error = 3 }

    /// Sends an event to the client. Declared challenge events open a
    /// challenge. False when nothing was sent: the event is not declared, or
    /// its params do not fit the schema it declares (the host logs why).
    @discardableResult
    public func emit(_ event: String, _ params: JSON) -> Bool {
        table.pointee.emit_event(context, event, params.newReference()) == FLOWHOST_OK
    }

    /// Calls a service of the host or of another flow.
    public func call(_ service: String, _ params: JSON = .object()) throws(FlowHostError) -> JSON {
        var result: UnsafeMutablePointer<json_t>? = nil
        var error = flowhost_error_v1()
        let status = params.withUnsafeRaw { table.pointee.call_service(context, service, $0, &result, &error) }
        guard status == FLOWHOST_OK else {
            let failure = FlowHostError(abi: &error)  // takes its own reference to data
            if let data = error.data { json_decref(data) }
            throw failure
        }
        return result.map { JSON(taking: $0) } ?? .null
    }

    /// Asks the client something (for example `platform/authenticateLDA`).
    /// `completion` runs once, later, with the answer or a timeout.
    public func request(
        _ method: String, _ params: JSON, timeoutMilliseconds: UInt32 = 0,
        completion: @escaping (Result<JSON, FlowHostError>) -> Void
    ) {
        let box = Unmanaged.passRetained(CompletionBox(completion)).toOpaque()
        let status = table.pointee.send_request(context, method, params.newReference(), timeoutMilliseconds, Self.resultTrampoline, box)
        if status != FLOWHOST_OK {
            let box = Unmanaged<CompletionBox>.fromOpaque(box).takeRetainedValue()
            let reason = status == FLOWHOST_ERR_LIMIT ? "too many requests in flight" : "host refused the request (\(status))"
            box.completion(.failure(FlowHostError(.internalError, message: reason)))
        }
    }

    /// Cancels every request this flow still waits on (its dialogue was
    /// reset): each completion runs at once with -32800, and the client is
    /// told. A host older than ABI 1.1 has no cancellation; then nothing happens
    /// and the requests run out their timeouts.
    @discardableResult
    public func cancelRequests() -> Int {
        guard let cancel = field(\.cancel_requests) else { return 0 }
        return Int(cancel(context))
    }

    /// Abandons the flow's dialogue: its service calls (down the chain) and
    /// its host requests are cancelled, each callback runs once with -32800.
    public func abandonDialogue() {
        cancelCalls()
        cancelRequests()
    }

    /// The host's minor ABI version (0 for a 1.0 host).
    public var hostMinorVersion: Int { hostHas(\flowhost_host_v1.abi_minor) ? Int(table.pointee.abi_minor) : 0 }

    // MARK: Asynchronous services (ABI 1.1)

    /// Calls a service without waiting: `completion` runs once, later, on
    /// the loop thread. Returns the call's id, or nil when the host refused
    /// at once (then `completion` runs at once with the reason).
    @discardableResult
    public func call(_ service: String, _ params: JSON = .object(), completion: @escaping (Result<JSON, FlowHostError>) -> Void) -> UInt64? {
        guard let callAsync = field(\.call_service_async) else {
            completion(.failure(Self.tooOld("call_service_async")))
            return nil
        }
        let box = Unmanaged.passRetained(CompletionBox(completion)).toOpaque()
        var id: UInt64 = 0
        let status = params.withUnsafeRaw { callAsync(context, service, $0, Self.resultTrampoline, box, &id) }
        guard status == FLOWHOST_OK else {
            Unmanaged<CompletionBox>.fromOpaque(box).takeRetainedValue().completion(
                .failure(
                    FlowHostError(
                        status == FLOWHOST_ERR_UNDECLARED_SERVICE || status == FLOWHOST_ERR_UNKNOWN_SERVICE ? .methodNotFound : .internalError,
                        message: "host refused the call of \(service) (\(status))")))
            return nil
        }
        return id
    }

    /// Finishes a call this flow serves (see `Flow.serve`). False when the
    /// call is no longer pending (its caller cancelled it).
    @discardableResult
    public func complete(_ call: UInt64, _ outcome: Result<JSON, FlowHostError>) -> Bool {
        guard let complete = field(\.complete_call) else { return false }
        switch outcome {
        case .success(let value):
            return complete(context, call, value.newReference(), nil) == FLOWHOST_OK
        case .failure(let failure):
            var error = flowhost_error_v1()
            failure.fill(&error)
            defer { if let data = error.data { json_decref(data) } }
            return complete(context, call, nil, &error) == FLOWHOST_OK
        }
    }

    /// Cancels every service call this flow is waiting on, down the chain.
    @discardableResult
    public func cancelCalls() -> Int {
        guard let cancel = field(\.cancel_calls) else { return 0 }
        return Int(cancel(context))
    }

    // MARK: Timers (ABI 1.1)

    /// A one-shot timer; returns its id (nil on a host without timers).
    /// `fire` runs only if the timer fires; on a 1.4 host the host also
    /// says when it was stopped instead, and the SDK's box is freed then.
    @discardableResult
    public func setTimer(milliseconds: UInt32, _ fire: @escaping () -> Void) -> UInt64? {
        let timer = TimerBox()
        timer.done = { [weak self] id, fired in
            self?.timerBoxes[id] = nil
            if fired { fire() }
        }
        let box = Unmanaged.passRetained(timer).toOpaque()
        var id: UInt64 = 0
        let status: Int32
        if let once = field(\.set_timer_once) {
            status = once(context, milliseconds, { userData, status in
                // The host's reference, taken back: the box lives until its callback returns.
                let box = Unmanaged<TimerBox>.fromOpaque(userData!).takeRetainedValue()
                withExtendedLifetime(box) { box.done(box.id, status == FLOWHOST_OK) }
            }, box, &id)
        } else if let set = field(\.set_timer) {
            status = set(context, milliseconds, { userData in
                let box = Unmanaged<TimerBox>.fromOpaque(userData!).takeRetainedValue()
                withExtendedLifetime(box) { box.done(box.id, true) }
            }, box, &id)
        } else {
            status = FLOWHOST_ERR_FAILED
        }
        guard status == FLOWHOST_OK else {
            Unmanaged<TimerBox>.fromOpaque(box).release()
            return nil
        }
        timer.id = id
        timerBoxes[id] = box
        return id
    }

    /// Cancels a timer that has not fired; false when it fired or is unknown.
    @discardableResult
    public func cancelTimer(_ id: UInt64) -> Bool {
        guard let cancel = field(\.cancel_timer), cancel(context, id) == FLOWHOST_OK else { return false }
        // A 1.4 host ran the callback already (it freed the box); an older one never will.
        if let box = timerBoxes.removeValue(forKey: id) { Unmanaged<TimerBox>.fromOpaque(box).release() }
        return true
    }

    // MARK: The host's session (ABI 1.1)

    /// Who is logged in on this host: `{userID, sessionID, deviceID, since,
    /// lastProvedAt, factors, ldaType?}`, or nil.
    public var session: JSON? {
        guard let read = field(\.session), let raw = read(context) else { return nil }
        let value = JSON(taking: raw)
        return value.isNull ? nil : value
    }

    /// Ends the host's session; every flow hears it. False when no one is logged in.
    @discardableResult
    public func endSession(reason: String) -> Bool {
        guard let end = field(\.end_session) else { return false }
        return end(context, reason) == FLOWHOST_OK
    }

    // MARK: The change feed (ABI 1.1)

    /// Events of `topic` published from now on, by any host on the store,
    /// arrive through `Flow.notified`.
    @discardableResult
    public func subscribe(_ topic: String) -> Bool {
        guard let subscribe = field(\.subscribe) else { return false }
        return subscribe(context, topic) == FLOWHOST_OK
    }

    /// Stops receiving `topic` (subscribe only while needed: a host with no
    /// subscription does not watch the feed at all).
    public func unsubscribe(_ topic: String) {
        guard let unsubscribe = field(\.unsubscribe) else { return }
        _ = unsubscribe(context, topic)
    }

    @discardableResult
    public func publish(_ topic: String, _ payload: JSON) -> Bool {
        guard let publish = field(\.publish) else { return false }
        return payload.withUnsafeRaw { publish(context, topic, $0) } == FLOWHOST_OK
    }

    // MARK: Dialogues (ABI 1.2)

    /// Ends whatever dialogue is in progress on this host, whichever flow
    /// runs it; the session stays. False when nothing was in progress (or
    /// the host is older than ABI 1.2).
    @discardableResult
    public func abandonAllDialogues() -> Bool {
        guard let abandon = field(\.abandon_dialogues) else { return false }
        return abandon(context) == 1
    }

    // MARK: Table access

    /// A function of the host table, if the host's table is long enough to
    /// hold it (a host built against an older header has a shorter table).
    private func field<F>(_ path: KeyPath<flowhost_host_v1, F?>) -> F? {
        guard hostHas(path) else { return nil }
        return table.pointee[keyPath: path]
    }

    private func hostHas<Field>(_ path: KeyPath<flowhost_host_v1, Field>) -> Bool {
        guard let offset = MemoryLayout<flowhost_host_v1>.offset(of: path) else { return false }
        return Int(table.pointee.struct_size) >= offset + MemoryLayout<Field>.size
    }

    static func tooOld(_ what: String) -> FlowHostError {
        FlowHostError(.internalError, message: "the host is older than ABI 1.1 and has no \(what)")
    }

    /// Runs a `CompletionBox` once with a host request's or a service call's outcome.
    private static let resultTrampoline: flowhost_response_fn = { userData, result, error in
        let box = Unmanaged<CompletionBox>.fromOpaque(userData!).takeRetainedValue()
        if let result {
            box.completion(.success(JSON(borrowing: result)))
        } else if let error {
            box.completion(.failure(FlowHostError(abi: error)))
        } else {
            box.completion(.failure(.internalError))
        }
    }

    public func log(_ level: LogLevel, _ message: String) {
        table.pointee.log(context, level.rawValue, message)
    }

    /// Milliseconds on a monotonic clock: for deadlines and durations. It
    /// never steps, and means nothing across processes or restarts.
    public var monotonicMilliseconds: UInt64 { table.pointee.monotonic_ms(context) }

    /// The host's wall clock, in milliseconds since the Unix epoch: for what
    /// is kept or compared across hosts and restarts ("5 tries per hour").
    /// It may step back or forward (NTP, an operator): clamp what two
    /// readings give (a negative age is 0), and time durations with
    /// `monotonicMilliseconds`. On a host older than ABI 1.5, the machine's clock.
    public var wallClockMilliseconds: Int64 {
        guard let read = field(\.wall_clock_ms) else { return Self.systemWallClockMilliseconds() }
        return read(context)
    }

    private static func systemWallClockMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// A message for the client in the language it set (`setSDKLanguage`):
    /// the catalog's translation of `msgid` in `context`, else `msgid`, the
    /// English text, itself; each `{name}` filled from `values`. On a host
    /// older than ABI 1.6, the English text.
    public func text(_ msgid: String, in context: String, _ values: [String: String] = [:]) -> String {
        guard let localize = field(\.localize) else { return MessageKey.fill(msgid, values) }
        let object = JSON.object()
        for (name, value) in values { object[name] = .string(value) }
        let borrowed = object.newReference()
        defer { json_decref(borrowed) }
        guard let text = localize(self.context, context, msgid, borrowed) else { return MessageKey.fill(msgid, values) }
        return JSON(taking: text).stringValue ?? MessageKey.fill(msgid, values)
    }

    /// `{device, clientInfo}` from `initialize`.
    public var sessionInfo: JSON { JSON(taking: table.pointee.session_info(context) ?? json_object()) }
}

private final class TimerBox {
    var id: UInt64 = 0
    var done: (_ id: UInt64, _ fired: Bool) -> Void = { _, _ in }
}

private final class CompletionBox {
    let completion: (Result<JSON, FlowHostError>) -> Void
    init(_ completion: @escaping (Result<JSON, FlowHostError>) -> Void) { self.completion = completion }
}
