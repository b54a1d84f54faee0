import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// Where a method name leads.
enum MethodRoute {
    /// Handled by the host itself.
    case builtin(MethodSpec, (JSON) throws(FlowHostError) -> JSON?)
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

/// Who serves a named service, and the params it declares (checked by the
/// host's binder before the provider runs; nil: unchecked).
enum ServiceProvider {
    /// A host service: given the calling flow's name, and the params.
    case host(params: [ParamSpec]?, (_ caller: String, JSON) throws(FlowHostError) -> JSON?)
    /// A host service that finishes later (it asks the client's platform):
    /// `finish` must be called once.
    case hostAsync(params: [ParamSpec]?, (_ caller: LoadedPlugin, JSON, _ finish: @escaping (Result<JSON?, FlowHostError>) -> Void) -> Void)
    case flow(LoadedPlugin, ServiceSpec)

    var params: [ParamSpec]? {
        switch self {
        case .host(let params, _), .hostAsync(let params, _): params
        case .flow(_, let spec): spec.params
        }
    }
}
