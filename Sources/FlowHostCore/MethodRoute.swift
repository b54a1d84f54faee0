import FlowJSON
import JSONRPC

/// Where a method name leads.
enum MethodRoute {
    /// Handled by the host itself.
    case builtin(MethodSpec, (JSON) throws(RPCError) -> JSON?)
    /// An ordinary method of one flow.
    case flow(LoadedPlugin, MethodSpec)
    /// A challenge answer: goes to whichever flow holds the open challenge.
    case answer(MethodSpec)

    var spec: MethodSpec {
        switch self {
        case .builtin(let spec, _), .flow(_, let spec), .answer(let spec): spec
        }
    }
}

/// Who serves a named service.
enum ServiceProvider {
    case host((JSON) throws(RPCError) -> JSON?)
    case flow(LoadedPlugin)
}

/// A request the host sent to the client and still waits on.
struct PendingClientRequest {
    let method: String
    unowned let owner: LoadedPlugin
    let deadline: UInt64
    let completion: (Result<JSON, RPCError>) -> Void
}
