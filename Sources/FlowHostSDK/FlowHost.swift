import CFlowHostABI
import CJansson
import FlowJSON

/// The host as a Swift flow sees it: a safe face over `flowhost_host_v1`.
///
/// Use it on the loop thread only (the host refuses other threads).
public final class FlowHost {
    private let table: UnsafePointer<flowhost_host_v1>
    private let context: OpaquePointer

    init(table: UnsafePointer<flowhost_host_v1>, context: OpaquePointer) {
        self.table = table
        self.context = context
    }

    public enum LogLevel: Int32 { case debug = 0, info = 1, warning = 2, error = 3 }

    /// Sends an event to the client. Declared challenge events open a challenge.
    @discardableResult
    public func emit(_ event: String, _ params: JSON) -> Bool {
        table.pointee.emit_event(context, event, params.newReference()) == FLOWHOST_OK
    }

    /// Calls a service of the host or of another flow.
    public func call(_ service: String, _ params: JSON = .object()) throws(FlowError) -> JSON {
        var result: UnsafeMutablePointer<json_t>? = nil
        var error = flowhost_error_v1()
        let status = params.withUnsafeRaw { table.pointee.call_service(context, service, $0, &result, &error) }
        guard status == FLOWHOST_OK else {
            let failure = FlowError(abi: &error)  // takes its own reference to data
            if let data = error.data { json_decref(data) }
            throw failure
        }
        return result.map { JSON(taking: $0) } ?? .null
    }

    /// Asks the client something (for example `platform/authenticateLDA`).
    /// `completion` runs once, later, with the answer or a timeout.
    public func request(
        _ method: String, _ params: JSON, timeoutMilliseconds: UInt32 = 0,
        completion: @escaping (Result<JSON, FlowError>) -> Void
    ) {
        let box = Unmanaged.passRetained(CompletionBox(completion)).toOpaque()
        let status = table.pointee.send_request(
            context, method, params.newReference(), timeoutMilliseconds,
            { userData, result, error in
                let box = Unmanaged<CompletionBox>.fromOpaque(userData!).takeRetainedValue()
                if let result {
                    box.completion(.success(JSON(borrowing: result)))
                } else if let error {
                    box.completion(.failure(FlowError(abi: error)))
                } else {
                    box.completion(.failure(.internalError))
                }
            }, box)
        if status != FLOWHOST_OK {
            let box = Unmanaged<CompletionBox>.fromOpaque(box).takeRetainedValue()
            let reason = status == FLOWHOST_ERR_LIMIT ? "too many requests in flight" : "host refused the request (\(status))"
            box.completion(.failure(FlowError(code: -32603, message: reason)))
        }
    }

    /// Cancels every request this flow still waits on (its dialogue was
    /// reset): each completion runs at once with -32800, and the client is
    /// told. A host older than ABI 1.1 has no cancellation; then nothing happens
    /// and the requests run out their timeouts.
    @discardableResult
    public func cancelRequests() -> Int {
        guard hostHas(\.cancel_requests, MemoryLayout<flowhost_host_v1>.offset(of: \.cancel_requests)),
            let cancel = table.pointee.cancel_requests
        else { return 0 }
        return Int(cancel(context))
    }

    /// Whether the host's table is long enough to hold a field (hosts built
    /// against an older header have a shorter table).
    private func hostHas<Field>(_ field: KeyPath<flowhost_host_v1, Field>, _ offset: Int?) -> Bool {
        guard let offset else { return false }
        return Int(table.pointee.struct_size) >= offset + MemoryLayout<Field>.size
    }

    public func log(_ level: LogLevel, _ message: String) {
        table.pointee.log(context, level.rawValue, message)
    }

    public var monotonicMilliseconds: UInt64 { table.pointee.monotonic_ms(context) }

    /// `{device, clientInfo}` from `initialize`.
    public var sessionInfo: JSON { JSON(taking: table.pointee.session_info(context) ?? json_object()) }
}

private final class CompletionBox {
    let completion: (Result<JSON, FlowError>) -> Void
    init(_ completion: @escaping (Result<JSON, FlowError>) -> Void) { self.completion = completion }
}
