import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// The client as host services meet it: what it said in `initialize`, and
/// requests to its platform, made through the router for the running call.
/// Owned by the engine; loop thread only.
public final class ConnectedClient {
    let router: ServiceRouter
    var hello: ClientHello?

    init(router: ServiceRouter) { self.router = router }

    /// The client's `device` from `initialize` (deviceID, keyCustody, …).
    public var device: JSON { hello?.device ?? .object() }

    /// A host request to the client on behalf of a flow (a host service
    /// that needs the client's platform). `completion` runs once.
    public func request(
        _ method: String, _ params: JSON, for caller: LoadedPlugin, completion: @escaping (Result<JSON, FlowHostError>) -> Void
    ) {
        let sent = router.sendClientRequest(method: method, params: params, timeoutMilliseconds: 0, from: caller) { outcome in
            completion(outcome.mapError { FlowHostError($0.code, message: $0.message, data: $0.data) })
        }
        if !sent { completion(.failure(FlowHostError(.requestTimedOut, message: "too many requests in flight"))) }
    }
}
