import FlowJSON

/// One rule of the password policy a new password breaks: the rule's key as
/// `RELID_PASSWORD_POLICY` names it, the policy's limit for it, and the
/// English words for it. A client gets `{rule, limit}` beside the message,
/// so it can say it in its own words.
public struct PolicyViolation: Sendable, Equatable {
    public let rule: String
    public let limit: Limit
    public let text: String

    public enum Limit: Sendable, Equatable {
        case int(Int)
        case string(String)
        case bool(Bool)
    }

    init(_ rule: String, _ limit: Limit, _ text: String) {
        self.rule = rule
        self.limit = limit
        self.text = text
    }

    /// `{rule, limit}` (Protocol/schemas/password-policy-violation.schema.json).
    public var json: JSON {
        let limitValue: JSON =
            switch limit {
            case .int(let value): .int(value)
            case .string(let value): .string(value)
            case .bool(let value): .bool(value)
            }
        return ["rule": .string(rule), "limit": limitValue]
    }
}

extension PolicyViolation.Limit: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
