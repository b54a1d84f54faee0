/// A message of FlowHost as gettext names one: a context (the flow or the
/// part that says it: "mfa", "policy", "host") and the English text, which
/// is also the built-in default.
public struct MessageKey: Hashable, Sendable, CustomStringConvertible {
    public let context: String
    public let id: String

    public init(context: String, id: String) {
        self.context = context
        self.id = id
    }

    public var description: String { "\(context)|\(id)" }

    /// The placeholders a text names (`{userID}`), sorted: a translation must name the same ones.
    public static func placeholders(in text: String) -> [String] {
        var names: [String] = []
        var current: String?
        for character in text {
            if character == "{" {
                current = ""
            } else if character == "}", let name = current {
                if !name.isEmpty { names.append(name) }
                current = nil
            } else if current != nil {
                if character.isLetter || character.isNumber || character == "_" { current!.append(character) } else { current = nil }
            }
        }
        return names.sorted()
    }

    /// `text` with each `{name}` replaced by its value; a name without one stays as it is.
    public static func fill(_ text: String, _ values: [String: String]) -> String {
        guard !values.isEmpty, text.contains("{") else { return text }
        var result = ""
        var pending: String?
        for character in text {
            if character == "{" {
                if let open = pending { result += "{" + open }
                pending = ""
            } else if character == "}", let name = pending {
                result += values[name] ?? "{\(name)}"
                pending = nil
            } else if pending != nil {
                pending!.append(character)
            } else {
                result.append(character)
            }
        }
        if let open = pending { result += "{" + open }
        return result
    }
}
