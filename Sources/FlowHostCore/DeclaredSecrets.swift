import FlowJSON

/// The secrets the loaded flows declare (spec §8, "Masked secrets"): a
/// method's params marked `"secret": true`, and the members of an event's
/// params whose schema says `"secret": true`. They are masked wherever the
/// host shows traffic, on top of the members masked by name
/// (`FrameTrace.secretMembers`), whatever their names and types.
///
/// Read from the flows' whole manifests when first needed (a trace's first
/// frame): the loader keeps no event schema.
struct DeclaredSecrets {
    /// By method: the secret params' names, and their places among the
    /// declared params (for params given by position).
    private var methods: [String: [(name: String, position: Int)]] = [:]
    /// By event: the paths of its secret members (`["device", "pin"]`).
    private var events: [String: [[String]]] = [:]

    var isEmpty: Bool { methods.isEmpty && events.isEmpty }

    init(_ manifests: [PluginManifest]) {
        for manifest in manifests {
            for method in manifest.methods {
                let secret = method.params.enumerated().filter { $0.element.secret }.map { (name: $0.element.name, position: $0.offset) }
                if !secret.isEmpty { methods[method.name] = secret }
            }
            for event in manifest.events {
                var paths: [[String]] = []
                if let schema = event.params { Self.collect(schema, at: [], into: &paths) }
                if !paths.isEmpty { events[event.name] = paths }
            }
        }
    }

    /// The members a schema marks secret, through its `properties` at any depth.
    private static func collect(_ schema: JSON, at path: [String], into paths: inout [[String]]) {
        guard schema.kind == .object, let properties = schema["properties"], properties.kind == .object else { return }
        for name in properties.keys {
            guard let property = properties[name] else { continue }
            if property["secret"]?.boolValue == true {
                paths.append(path + [name])
            } else {
                collect(property, at: path + [name], into: &paths)
            }
        }
    }

    /// Masks the declared secrets of one message (a request or an event
    /// sent as `method` with `params`), in place.
    func mask(_ params: JSON, of method: String, with mask: String) {
        if let secret = methods[method] {
            if params.kind == .array {
                for (_, position) in secret where position < params.count { params.replace(at: position, with: .string(mask)) }
            } else if params.kind == .object {
                for (name, _) in secret where params[name] != nil { params[name] = .string(mask) }
            }
        }
        for path in events[method] ?? [] { Self.mask(params, at: path[...], with: mask) }
    }

    private static func mask(_ value: JSON, at path: ArraySlice<String>, with mask: String) {
        guard let name = path.first, value.kind == .object, let member = value[name] else { return }
        if path.count == 1 {
            value[name] = .string(mask)
        } else {
            Self.mask(member, at: path.dropFirst(), with: mask)
        }
    }
}
