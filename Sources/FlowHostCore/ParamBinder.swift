import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// Checks a call's params against what the method declares and gives the
/// flow an object, whatever form the client used.
///
/// Positional params (`[pw, 0]`, the SDK's argument order) are mapped to the
/// declared names; a JSON null in a positional slot of an optional param means
/// "not given". Names the method does not declare are refused, so a typo in a
/// client is an error rather than a silently ignored field.
enum ParamBinder {
    /// `empty` is what a call without params gets: the engine's one shared
    /// empty object (flows receive params borrowed, read-only).
    static func bind(_ params: JSON?, to specs: [ParamSpec], empty: JSON) throws(FlowHostError) -> JSON {
        guard let params else {
            if let missing = specs.first(where: \.required) {
                throw FlowHostError.invalidParams(field: missing.name, reason: "required")
            }
            return empty
        }
        if params.kind == .array {
            return try bindPositional(params, specs)
        }
        for key in params.keys where !specs.contains(where: { $0.name == key }) {
            throw FlowHostError.invalidParams(field: key, reason: "unknown parameter")
        }
        for spec in specs {
            guard let value = params[spec.name] else {
                if spec.required { throw FlowHostError.invalidParams(field: spec.name, reason: "required") }
                continue
            }
            try check(value, spec)
        }
        return params
    }

    private static func bindPositional(_ params: JSON, _ specs: [ParamSpec]) throws(FlowHostError) -> JSON {
        let elements = params.elements
        if elements.count > specs.count {
            throw FlowHostError.invalidParams(field: "params", reason: "at most \(specs.count) positional parameters")
        }
        let object = JSON.object()
        for (index, spec) in specs.enumerated() {
            guard index < elements.count, !(elements[index].isNull && !spec.required && spec.type != .any) else {
                if spec.required { throw FlowHostError.invalidParams(field: spec.name, reason: "required") }
                continue
            }
            try check(elements[index], spec)
            object[spec.name] = elements[index]
        }
        return object
    }

    private static func check(_ value: JSON, _ spec: ParamSpec) throws(FlowHostError) {
        if !spec.type.accepts(value.kind) {
            throw FlowHostError.invalidParams(field: spec.name, reason: "expected \(spec.type.rawValue), got \(value.kind.name)")
        }
        switch spec.format {
        case nil: break
        case .userID:
            if let problem = UserIdentifier.problem(with: value.stringValue ?? "") {
                throw FlowHostError.invalidParams(field: spec.name, reason: "a user id \(problem)")
            }
        case .deviceName:
            if let problem = DeviceName.problem(with: value.stringValue ?? "") {
                throw FlowHostError.invalidParams(field: spec.name, reason: "a device name \(problem)")
            }
        }
    }
}
