import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// Who owns each name a client or a flow can call: methods (the host's
/// builtins, flows' methods, shared answer methods) and services (the
/// host's, then flows'). The first owner of a name keeps it; a newcomer
/// that wants a taken name is refused whole (`conflict(of:)`). The host's
/// names are registered first and built-in flows are installed before any
/// other, so neither can lose a name to a plugin found elsewhere.
///
/// A class: the engine routes methods through it and the router services;
/// the parts that tell every flow read `flows`. Loop thread only.
final class NameTable {
    private(set) var methods: [String: MethodRoute] = [:]
    private(set) var services: [String: ServiceProvider] = [:]
    /// The installed flows, in the order installed.
    private(set) var flows: [LoadedPlugin] = []

    subscript(method name: String) -> MethodRoute? { methods[name] }

    func addBuiltin(_ spec: MethodSpec, _ body: @escaping (JSON) throws(FlowHostError) -> JSON?) {
        methods[spec.name] = .builtin(spec, body)
    }

    /// Host services are added before plugins are installed, so a flow
    /// cannot take a host service's name.
    func addHostService(_ name: String, _ provider: ServiceProvider) {
        precondition(services[name] == nil, "service \(name) registered twice")
        services[name] = provider
    }

    /// Adds an installed flow's methods and services (`conflict(of:)` was nil).
    func add(_ plugin: LoadedPlugin) {
        flows.append(plugin)
        for method in plugin.manifest.methods where methods[method.name] == nil {
            methods[method.name] = method.answers.isEmpty ? .flow(plugin, method) : .answer(method)
        }
        for service in plugin.manifest.services {
            services[service.name] = .flow(plugin, service)
        }
    }

    /// Why `plugin` cannot be installed beside `installed`, or nil.
    /// Answer methods may be declared by several flows if they agree on them.
    func conflict(of plugin: LoadedPlugin, installed: [LoadedPlugin]) -> String? {
        if FeedTopic.reservedNamespaces.contains(plugin.name) {
            return "flow name \(plugin.name) is reserved for the host"
        }
        // JSON-RPC 2.0 reserves every method name that begins with "rpc.".
        let declared = plugin.manifest.methods.map(\.name) + plugin.manifest.events.map(\.name) + plugin.manifest.services.map(\.name)
        if let reserved = declared.first(where: { $0.hasPrefix("rpc.") }) {
            return "\(reserved): names that begin with \"rpc.\" are reserved by JSON-RPC 2.0"
        }
        if let other = installed.first(where: { $0.name == plugin.name }) {
            return "flow name \(plugin.name) is already taken by \(other.origin == .builtIn ? "the built-in flow at " : "")\(other.path)"
        }
        if plugin.origin != .builtIn, let owned = Self.builtInName(declaredBy: plugin, installed: installed) {
            return owned
        }
        for method in plugin.manifest.methods {
            guard let existing = methods[method.name] else { continue }
            if case .answer(let spec) = existing, spec.isCompatible(with: method) { continue }
            return "method \(method.name) is already taken"
        }
        for service in plugin.manifest.services where services[service.name] != nil {
            return "service \(service.name) is already taken"
        }
        return nil
    }

    /// A name `plugin` declares that a built-in flow owns, as the refusal's
    /// text: a flow from elsewhere may not answer the built-in flows'
    /// methods, raise their events or serve their services (a look-alike
    /// `stepup.authenticate` would sign without a password). Installed
    /// built-in flows come first (`HostEngine.install`), so all are known.
    private static func builtInName(declaredBy plugin: LoadedPlugin, installed: [LoadedPlugin]) -> String? {
        for owner in installed where owner.origin == .builtIn {
            let owned = (
                methods: Set(owner.manifest.methods.map(\.name)), events: Set(owner.manifest.events.map(\.name)),
                services: Set(owner.manifest.services.map(\.name))
            )
            let claims: [(kind: String, name: String, taken: Bool)] =
                plugin.manifest.methods.map { ("method", $0.name, owned.methods.contains($0.name)) }
                + plugin.manifest.events.map { ("event", $0.name, owned.events.contains($0.name)) }
                + plugin.manifest.services.map { ("service", $0.name, owned.services.contains($0.name)) }
            if let claim = claims.first(where: \.taken) {
                return "\(claim.kind) \(claim.name) is owned by the built-in flow \(owner.name); a flow found elsewhere (\(plugin.origin.rawValue)) may not take it"
            }
        }
        return nil
    }

    /// The checks every service call passes before its provider runs: the
    /// caller declared it in `uses`, someone offers it, its params fit, and
    /// a flow from elsewhere gives a built-in flow no SDK challenge mode.
    func checkedService(_ name: String, params: JSON, from caller: LoadedPlugin?) -> Result<(provider: ServiceProvider, params: JSON), FlowHostError> {
        if let caller, caller.declaresUses || !caller.manifest.uses.isEmpty, !caller.manifest.uses.contains(name) {
            return .failure(.undeclaredService(name, by: caller.name))
        }
        guard let provider = services[name] else { return .failure(.unknownService(name)) }
        var bound = params
        if let specs = provider.params {
            do { bound = try ParamBinder.bind(params, to: specs, empty: .object()) } catch { return .failure(error) }
        }
        if case .flow(let plugin, _) = provider, let refusal = ForeignChallengeMode.refusal(bound, caller: caller, provider: plugin) {
            return .failure(refusal)
        }
        return .success((provider, bound))
    }
}

extension FlowHostError {
    /// A flow called a service its manifest's `uses` does not name.
    static func undeclaredService(_ name: String, by flow: String) -> FlowHostError {
        FlowHostError(.methodNotFound, message: "Service \(name) is not declared in the \"uses\" of flow \(flow)",
            data: ["service": .string(name), "reason": "undeclared"])
    }

    var isUndeclaredService: Bool { code == .methodNotFound && data?["reason"]?.stringValue == "undeclared" }
}
