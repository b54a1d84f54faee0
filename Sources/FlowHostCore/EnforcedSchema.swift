import FlowJSON

/// A JSON Schema (2020-12) as the host enforces it on the params of a
/// flow's event, prepared on the event's first emission, never at start.
///
/// It enforces the keywords in `checked` and passes over those in
/// `annotations`. A schema with any other keyword (`pattern`, `$ref`, …)
/// cannot be enforced, and an event the host cannot check is not sent
/// (spec §9, "Event schemas"): a schema that only seems enforced would be
/// worse than none.
struct EnforcedSchema {
    private let schema: JSON
    /// Why the schema cannot be enforced; nil when it can.
    let unenforceable: String?

    static let checked: Set<String> = [
        "type", "enum", "const", "properties", "required", "additionalProperties", "minProperties", "maxProperties",
        "items", "prefixItems", "minItems", "maxItems", "minLength", "maxLength",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "allOf", "anyOf", "oneOf", "not",
    ]
    static let annotations: Set<String> = [
        "$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
        "format", "contentMediaType", "contentEncoding", "secret",
    ]

    init(_ schema: JSON) {
        self.schema = schema
        unenforceable = Self.firstUnknownKeyword(in: schema, at: "")
    }

    /// A schema the host cannot read: every event is refused with `why`.
    init(unenforceable why: String) {
        schema = .null
        unenforceable = why
    }

    /// What in `value` the schema refuses, as a path and a rule
    /// (`params.code: must be integer`), never the value itself: it may be
    /// a secret. Nil when it fits.
    func violation(of value: JSON) -> String? {
        if let unenforceable { return unenforceable }
        return Self.violation(of: value, by: schema, at: "params")
    }

    // MARK: Preparing

    private static func firstUnknownKeyword(in schema: JSON, at path: String) -> String? {
        if schema.kind == .bool { return nil }
        guard schema.kind == .object else { return "schema\(path): must be an object or a boolean" }
        for key in schema.keys where !checked.contains(key) && !annotations.contains(key) {
            return "schema\(path): the host does not enforce \"\(key)\""
        }
        for key in ["additionalProperties", "items", "not"] {
            if let inner = schema[key], let problem = firstUnknownKeyword(in: inner, at: "\(path).\(key)") { return problem }
        }
        if let properties = schema["properties"] {
            guard properties.kind == .object else { return "schema\(path).properties: must be an object" }
            for name in properties.keys {
                if let problem = firstUnknownKeyword(in: properties[name]!, at: "\(path).properties.\(name)") { return problem }
            }
        }
        for key in ["prefixItems", "allOf", "anyOf", "oneOf"] {
            guard let list = schema[key] else { continue }
            guard list.kind == .array else { return "schema\(path).\(key): must be an array" }
            for (index, inner) in list.elements.enumerated() {
                if let problem = firstUnknownKeyword(in: inner, at: "\(path).\(key)[\(index)]") { return problem }
            }
        }
        return nil
    }

    // MARK: Checking

    private static func violation(of value: JSON, by schema: JSON, at path: String) -> String? {
        if let allowed = schema.boolValue { return allowed ? nil : "\(path): not allowed" }
        if let type = schema["type"] {
            let names = type.kind == .array ? type.elements.compactMap(\.stringValue) : [type.stringValue ?? ""]
            if !names.contains(where: { fits(value, type: $0) }) { return "\(path): must be \(names.joined(separator: " or "))" }
        }
        if let options = schema["enum"], !options.elements.contains(value) { return "\(path): not one of the allowed values" }
        if let constant = schema["const"], constant != value { return "\(path): not the required value" }
        switch value.kind {
        case .object: if let problem = objectViolation(of: value, by: schema, at: path) { return problem }
        case .array: if let problem = arrayViolation(of: value, by: schema, at: path) { return problem }
        case .string:
            let length = value.stringValue?.unicodeScalars.count ?? 0
            if let least = schema["minLength"]?.intValue, length < least { return "\(path): shorter than \(least)" }
            if let most = schema["maxLength"]?.intValue, length > most { return "\(path): longer than \(most)" }
        case .integer, .real:
            let number = value.doubleValue ?? 0
            // Each bound named as the schema writes it.
            func bound(_ key: String) -> (value: Double, text: String)? { schema[key].flatMap { b in b.doubleValue.map { ($0, b.serialized()) } } }
            if let least = bound("minimum"), number < least.value { return "\(path): less than \(least.text)" }
            if let most = bound("maximum"), number > most.value { return "\(path): more than \(most.text)" }
            if let least = bound("exclusiveMinimum"), number <= least.value { return "\(path): not more than \(least.text)" }
            if let most = bound("exclusiveMaximum"), number >= most.value { return "\(path): not less than \(most.text)" }
        default: break
        }
        return combinedViolation(of: value, by: schema, at: path)
    }

    private static func fits(_ value: JSON, type: String) -> Bool {
        switch type {
        case "object": value.kind == .object
        case "array": value.kind == .array
        case "string": value.kind == .string
        case "integer": value.kind == .integer || (value.kind == .real && (value.doubleValue ?? 0).rounded() == value.doubleValue)
        case "number": value.kind == .integer || value.kind == .real
        case "boolean": value.kind == .bool
        case "null": value.kind == .null
        default: false
        }
    }

    private static func objectViolation(of value: JSON, by schema: JSON, at path: String) -> String? {
        for name in schema["required"]?.elements.compactMap(\.stringValue) ?? [] where value[name] == nil {
            return "\(path).\(name): required"
        }
        if let least = schema["minProperties"]?.intValue, value.count < least { return "\(path): fewer than \(least) members" }
        if let most = schema["maxProperties"]?.intValue, value.count > most { return "\(path): more than \(most) members" }
        let properties = schema["properties"]
        for name in value.keys {
            let member = value[name]!
            if let inner = properties?[name] {
                if let problem = violation(of: member, by: inner, at: "\(path).\(name)") { return problem }
            } else if let additional = schema["additionalProperties"] {
                if additional.boolValue == false { return "\(path).\(name): not allowed" }
                if let problem = violation(of: member, by: additional, at: "\(path).\(name)") { return problem }
            }
        }
        return nil
    }

    private static func arrayViolation(of value: JSON, by schema: JSON, at path: String) -> String? {
        if let least = schema["minItems"]?.intValue, value.count < least { return "\(path): fewer than \(least) items" }
        if let most = schema["maxItems"]?.intValue, value.count > most { return "\(path): more than \(most) items" }
        let prefix = schema["prefixItems"]?.elements ?? []
        for (index, element) in value.elements.enumerated() {
            let inner = index < prefix.count ? prefix[index] : schema["items"]
            if let inner, let problem = violation(of: element, by: inner, at: "\(path)[\(index)]") { return problem }
        }
        return nil
    }

    private static func combinedViolation(of value: JSON, by schema: JSON, at path: String) -> String? {
        for inner in schema["allOf"]?.elements ?? [] {
            if let problem = violation(of: value, by: inner, at: path) { return problem }
        }
        if let options = schema["anyOf"]?.elements, !options.contains(where: { violation(of: value, by: $0, at: path) == nil }) {
            return "\(path): fits none of anyOf"
        }
        if let options = schema["oneOf"]?.elements {
            let fitting = options.filter { violation(of: value, by: $0, at: path) == nil }.count
            if fitting != 1 { return "\(path): fits \(fitting) of oneOf, not exactly one" }
        }
        if let excluded = schema["not"], violation(of: value, by: excluded, at: path) == nil { return "\(path): fits what \"not\" excludes" }
        return nil
    }
}
