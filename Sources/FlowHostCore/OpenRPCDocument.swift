import FlowHostVocabulary
import FlowJSON

/// Builds the `rpc.discover` answer from what the host and the flows declare.
///
/// Events (server-to-client notifications) have no place in OpenRPC 1.x, so
/// they are listed under the extension key `x-flowhost-events`.
enum OpenRPCDocument {
    static func make(names: NameTable, options: HostEngine.Options) -> JSON {
        // The flows' manifests with their descriptions, read again: the engine holds only what it enforces.
        let described = Dictionary(names.flows.map { ($0.name, $0.describedManifest) }, uniquingKeysWith: { first, _ in first })
        var specs: [MethodSpec] = []
        var seen = Set<String>()
        let builtinOrder = ["initialize", "shutdown", "exit", "rpc.discover", "ping"]
        for name in builtinOrder { if let route = names[method: name] { specs.append(route.spec); seen.insert(name) } }
        for plugin in names.flows {
            for method in described[plugin.name]!.methods where seen.insert(method.name).inserted { specs.append(method) }
        }
        let methods = JSON.array()
        for spec in specs {
            let method: JSON = ["name": .string(spec.name), "paramStructure": "either"]
            if !spec.summary.isEmpty { method["summary"] = .string(spec.summary) }
            method["params"] = .array(spec.params.map(describe))
            if spec.name == "exit" {
                method["x-flowhost-notification"] = true  // sent without an id: nothing answers it
            } else {
                method["result"] = ["name": "result", "schema": spec.result ?? .object()]
            }
            if !spec.errors.isEmpty { method["errors"] = .array(spec.errors.map(describe)) }
            if !spec.answers.isEmpty { method["x-flowhost-answers"] = .array(spec.answers.map(JSON.string)) }
            if spec.startsDialogue { method["x-flowhost-startsDialogue"] = true }
            // Who serves it: the host, or every flow that declares it (an
            // answer shared by several flows goes to the one that asked).
            let declaring = names.flows.filter { plugin in plugin.manifest.methods.contains { $0.name == spec.name } }
            method["x-flowhost-flows"] = declaring.isEmpty ? ["host"] : .array(declaring.map { .string($0.name) })
            methods.append(method)
        }
        let events = JSON.array()
        for plugin in names.flows {
            for event in described[plugin.name]!.events {
                let entry: JSON = ["name": .string(event.name), "flow": .string(plugin.name), "challenge": .bool(event.isChallenge)]
                if !event.summary.isEmpty { entry["summary"] = .string(event.summary) }
                entry["params"] = event.params ?? ["type": "object"]
                events.append(entry)
            }
        }
        for (name, summary) in hostEvents {
            events.append(["name": .string(name), "flow": "host", "challenge": false, "summary": .string(summary), "params": ["type": "object"]])
        }
        let services = JSON.array()
        for name in names.services.keys.sorted() {
            let entry: JSON = ["name": .string(name)]
            switch names.services[name]! {
            case .host(let params, _), .hostAsync(let params, _):
                entry["provider"] = "host"
                if let params { entry["params"] = .array(params.map(describe)) }
            case .flow(let plugin, let enforced):
                let spec = described[plugin.name]?.services.first { $0.name == name } ?? enforced
                entry["provider"] = .string(plugin.name)
                if !spec.summary.isEmpty { entry["summary"] = .string(spec.summary) }
                if let params = spec.params { entry["params"] = .array(params.map(describe)) }
            }
            entry["usedBy"] = .array(names.flows.filter { $0.manifest.uses.contains(name) }.map { .string($0.name) })
            services.append(entry)
        }
        return [
            "openrpc": "1.3.2",
            "info": ["title": .string(options.hostName), "version": .string(options.hostVersion)],
            "methods": methods,
            "x-flowhost-events": events,
            "x-flowhost-services": services,
        ]
    }

    /// The host's own events (schemas `host.<event>.params` in Protocol/schemas).
    static let hostEvents: [(String, String)] = [
        ("$/cancelRequest", "The host no longer waits for its request {id}."),
    ]

    private static func describe(_ param: ParamSpec) -> JSON {
        let descriptor: JSON = ["name": .string(param.name), "required": .bool(param.required), "schema": schema(for: param)]
        if !param.description.isEmpty { descriptor["description"] = .string(param.description) }
        if param.secret { descriptor["x-flowhost-secret"] = true }
        return descriptor
    }

    /// OpenRPC's Error Object; the description, which it has no place for, as an extension.
    private static func describe(_ error: DeclaredError) -> JSON {
        let object: JSON = ["code": .int(error.code), "message": .string(error.message)]
        if !error.description.isEmpty { object["x-flowhost-description"] = .string(error.description) }
        return object
    }

    private static func schema(for param: ParamSpec) -> JSON {
        if param.type == .any { return .object() }
        let schema: JSON = ["type": .string(param.type.rawValue)]
        switch param.format {
        case nil: break
        case .userID:
            // JSON Schema counts code points (scalars), as the rule does; bytes and characters are in the spec.
            schema["format"] = "userID"
            schema["minLength"] = 1
            schema["maxLength"] = .int(UserIdentifier.maxScalars)
        case .deviceName:
            schema["format"] = "deviceName"
            schema["minLength"] = 1
            schema["maxLength"] = .int(DeviceName.maxScalars)
        }
        return schema
    }
}
