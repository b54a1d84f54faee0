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
    /// The schema's keywords read once, as it is prepared: an event is
    /// checked with no lookup by keyword name (every feed event a flow
    /// passes on is checked).
    private let root: SchemaNode?
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
        unenforceable = Self.firstUnknownKeyword(in: schema, at: "")
        root = unenforceable == nil ? SchemaNode(schema) : nil
    }

    /// A schema the host cannot read: every event is refused with `why`.
    init(unenforceable why: String) {
        root = nil
        unenforceable = why
    }

    /// What in `value` the schema refuses, as a path and a rule
    /// (`params.code: must be integer`), never the value itself: it may be
    /// a secret. Nil when it fits.
    func violation(of value: JSON) -> String? {
        if let unenforceable { return unenforceable }
        guard let refused = root?.violation(of: value) else { return nil }
        return "params\(refused.path): \(refused.rule)"
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
}
