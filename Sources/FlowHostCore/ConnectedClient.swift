import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// The client as the host's services meet it: what it said in `initialize`
/// (the device it runs on), and requests to its platform made on a flow's
/// behalf, which the router tracks with the call they belong to.
///
/// Owned by the engine; loop thread only.
public final class ConnectedClient {
    let router: ServiceRouter
    /// What the client said in `initialize`.
    var hello: ClientHello?

    init(router: ServiceRouter) { self.router = router }

    /// The client's `device` from `initialize` (deviceID, keyCustody, …).
    public var device: JSON { hello?.device ?? .object() }

    /// The facts from `initialize` that flows may read.
    var infoForFlows: JSON { hello?.infoForFlows ?? .object() }

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
