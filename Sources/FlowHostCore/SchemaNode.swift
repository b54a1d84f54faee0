import FlowJSON

/// One node of an `EnforcedSchema`, its keywords read from the JSON once.
/// A class: a node holds nodes, and the tree is shared by every check.
final class SchemaNode {
    /// A boolean schema: everything, or nothing.
    private let allows: Bool?
    private let types: [String]?
    private let allowedValues: [JSON]?
    private let requiredValue: JSON?
    private let required: [String]
    private let minProperties: Int?
    private let maxProperties: Int?
    private let properties: [String: SchemaNode]?
    private let additionalProperties: SchemaNode?
    private let minItems: Int?
    private let maxItems: Int?
    private let prefixItems: [SchemaNode]
    private let items: SchemaNode?
    private let minLength: Int?
    private let maxLength: Int?
    /// Each bound with its text as the schema writes it (the refusal names it so).
    private let minimum: (value: Double, text: String)?
    private let maximum: (value: Double, text: String)?
    private let exclusiveMinimum: (value: Double, text: String)?
    private let exclusiveMaximum: (value: Double, text: String)?
    private let allOf: [SchemaNode]
    private let anyOf: [SchemaNode]?
    private let oneOf: [SchemaNode]?
    private let not: SchemaNode?

    /// `schema` passed `EnforcedSchema`'s keyword check: an object or a boolean.
    init(_ schema: JSON) {
        allows = schema.boolValue
        types = schema["type"].map { type in type.kind == .array ? type.elements.compactMap(\.stringValue) : [type.stringValue ?? ""] }
        allowedValues = schema["enum"].map(\.elements)
        requiredValue = schema["const"]
        required = schema["required"]?.elements.compactMap(\.stringValue) ?? []
        minProperties = schema["minProperties"]?.intValue
        maxProperties = schema["maxProperties"]?.intValue
        properties = schema["properties"].map { members in
            Dictionary(uniqueKeysWithValues: members.keys.map { ($0, SchemaNode(members[$0]!)) })
        }
        additionalProperties = schema["additionalProperties"].map(SchemaNode.init)
        minItems = schema["minItems"]?.intValue
        maxItems = schema["maxItems"]?.intValue
        prefixItems = schema["prefixItems"]?.elements.map(SchemaNode.init) ?? []
        items = schema["items"].map(SchemaNode.init)
        minLength = schema["minLength"]?.intValue
        maxLength = schema["maxLength"]?.intValue
        func bound(_ key: String) -> (Double, String)? { schema[key].flatMap { b in b.doubleValue.map { ($0, b.serialized()) } } }
        minimum = bound("minimum")
        maximum = bound("maximum")
        exclusiveMinimum = bound("exclusiveMinimum")
        exclusiveMaximum = bound("exclusiveMaximum")
        allOf = schema["allOf"]?.elements.map(SchemaNode.init) ?? []
        anyOf = schema["anyOf"].map { $0.elements.map(SchemaNode.init) }
        oneOf = schema["oneOf"].map { $0.elements.map(SchemaNode.init) }
        not = schema["not"].map(SchemaNode.init)
    }

    /// Where below this node `value` is refused (`.name`, `[2]`, … ; empty:
    /// here) and by which rule. The path is built only for a refusal.
    func violation(of value: JSON) -> (path: String, rule: String)? {
        if let allows { return allows ? nil : ("", "not allowed") }
        if let types, !types.contains(where: { Self.fits(value, type: $0) }) { return ("", "must be " + types.joined(separator: " or ")) }
        if let allowedValues, !allowedValues.contains(value) { return ("", "not one of the allowed values") }
        if let requiredValue, requiredValue != value { return ("", "not the required value") }
        switch value.kind {
        case .object: if let refused = objectViolation(of: value) { return refused }
        case .array: if let refused = arrayViolation(of: value) { return refused }
        case .string:
            let length = value.stringValue?.unicodeScalars.count ?? 0
            if let minLength, length < minLength { return ("", "shorter than \(minLength)") }
            if let maxLength, length > maxLength { return ("", "longer than \(maxLength)") }
        case .integer, .real:
            let number = value.doubleValue ?? 0
            if let minimum, number < minimum.value { return ("", "less than \(minimum.text)") }
            if let maximum, number > maximum.value { return ("", "more than \(maximum.text)") }
            if let exclusiveMinimum, number <= exclusiveMinimum.value { return ("", "not more than \(exclusiveMinimum.text)") }
            if let exclusiveMaximum, number >= exclusiveMaximum.value { return ("", "not less than \(exclusiveMaximum.text)") }
        default: break
        }
        return combinedViolation(of: value)
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

    private func objectViolation(of value: JSON) -> (path: String, rule: String)? {
        for name in required where value[name] == nil { return ("." + name, "required") }
        if let minProperties, value.count < minProperties { return ("", "fewer than \(minProperties) members") }
        if let maxProperties, value.count > maxProperties { return ("", "more than \(maxProperties) members") }
        guard properties != nil || additionalProperties != nil else { return nil }
        for name in value.keys {
            guard let inner = properties?[name] ?? additionalProperties else { continue }
            if let refused = inner.violation(of: value[name]!) { return ("." + name + refused.path, refused.rule) }
        }
        return nil
    }

    private func arrayViolation(of value: JSON) -> (path: String, rule: String)? {
        if let minItems, value.count < minItems { return ("", "fewer than \(minItems) items") }
        if let maxItems, value.count > maxItems { return ("", "more than \(maxItems) items") }
        guard !prefixItems.isEmpty || items != nil else { return nil }
        for (index, element) in value.elements.enumerated() {
            guard let inner = index < prefixItems.count ? prefixItems[index] : items else { continue }
            if let refused = inner.violation(of: element) { return ("[\(index)]" + refused.path, refused.rule) }
        }
        return nil
    }

    private func combinedViolation(of value: JSON) -> (path: String, rule: String)? {
        for inner in allOf {
            if let refused = inner.violation(of: value) { return refused }
        }
        if let anyOf, !anyOf.contains(where: { $0.violation(of: value) == nil }) { return ("", "fits none of anyOf") }
        if let oneOf {
            let fitting = oneOf.filter { $0.violation(of: value) == nil }.count
            if fitting != 1 { return ("", "fits \(fitting) of oneOf, not exactly one") }
        }
        if let not, not.violation(of: value) == nil { return ("", "fits what \"not\" excludes") }
        return nil
    }
}
