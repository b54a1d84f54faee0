import FlowJSON

/// A message's placeholder values as a flow gives them (a JSON object):
/// strings as they are, numbers and booleans as JSON writes them; a
/// member of another kind fills nothing.
public enum MessageValues {
    public static func strings(_ values: JSON) -> [String: String] {
        guard values.kind == .object else { return [:] }
        var strings: [String: String] = [:]
        for name in values.keys {
            guard let value = values[name] else { continue }
            switch value.kind {
            case .string: strings[name] = value.stringValue
            case .integer, .real, .bool: strings[name] = value.serialized()
            default: continue
            }
        }
        return strings
    }
}
