/// Why a request to the host did not give a result.
public enum FlowHostClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host answered with a JSON-RPC error.
    case rpc(code: Int, message: String, data: JSONValue?)
    /// No answer within the request's timeout (the host may still act on it).
    case timedOut(method: String)
    /// The host's process ended, or its stdout closed, before it answered.
    case hostExited
    /// The host wrote a line that is not a JSON-RPC message.
    case malformedFrame(String)
    /// The host could not be started.
    case launchFailed(String)
    /// The host's socket could not be reached.
    case connectFailed(String)

    public var description: String {
        switch self {
        case .rpc(let code, let message, let data): return "\(code) \(message)" + (data.map { " \($0)" } ?? "")
        case .timedOut(let method): return "\(method): no answer in time"
        case .hostExited: return "the host exited"
        case .malformedFrame(let line): return "not a JSON-RPC message: \(line.prefix(200))"
        case .launchFailed(let reason): return "cannot start the host: \(reason)"
        case .connectFailed(let reason): return "cannot connect to the host: \(reason)"
        }
    }

    /// The JSON-RPC error code, when the host answered with one.
    public var code: Int? { if case .rpc(let code, _, _) = self { return code } else { return nil } }
}
