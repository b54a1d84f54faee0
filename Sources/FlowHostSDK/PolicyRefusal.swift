import FlowHostVocabulary
import FlowJSON

/// A new password the policy refuses (190), for the client: the message in
/// its language, and `{rule, limit}` for each rule broken, sent beside it
/// as `policyViolations` (Protocol/schemas/password-policy-violation.schema.json).
public struct PolicyRefusal {
    public let message: String
    public let violations: JSON

    /// The words for each rule (context "policy"), the policy's limit filled in.
    static let ruleTexts: [String: MessageKey] = [
        "minL": MessageKey(context: "policy", id: "shorter than {limit} characters"),
        "maxL": MessageKey(context: "policy", id: "longer than {limit} characters"),
        "minDg": MessageKey(context: "policy", id: "fewer than {limit} digits"),
        "minUc": MessageKey(context: "policy", id: "fewer than {limit} upper-case letters"),
        "minLc": MessageKey(context: "policy", id: "fewer than {limit} lower-case letters"),
        "minSc": MessageKey(context: "policy", id: "fewer than {limit} symbols"),
        "charsNotAllowed": MessageKey(context: "policy", id: "contains a character that is not allowed ({limit})"),
        "Repetition": MessageKey(context: "policy", id: "more than {limit} identical characters in a row"),
        "UserIDcheck": MessageKey(context: "policy", id: "contains the user id"),
        "SeqCheck": MessageKey(context: "policy", id: "contains a sequence of {limit} or more characters"),
        "BlackListedCommonPassword": MessageKey(context: "policy", id: "is a common password"),
    ]

    /// `problems` and `violations` of a `policy` outcome; a rule this SDK
    /// has no words for keeps the host's English text.
    public init(problems: [String], violations: JSON, host: FlowHost) {
        let rules = violations.elements
        var parts: [String] = []
        for (index, problem) in problems.enumerated() {
            let rule = index < rules.count ? rules[index] : nil
            if let name = rule?["rule"]?.stringValue, let words = Self.ruleTexts[name] {
                let limit = rule?["limit"].map { $0.stringValue ?? $0.serialized() } ?? ""
                parts.append(host.text(words.id, in: words.context, ["limit": limit]))
            } else {
                parts.append(problem)
            }
        }
        // The separator between two rules is the language's too (French puts a space before ";").
        let separator = host.text("; ", in: "policy")
        message = host.text("The password does not meet the password policy: {problems}.", in: "policy", ["problems": parts.joined(separator: separator)])
        self.violations = violations
    }
}

extension JSON {
    /// A `getPassword` event with `policyViolations` beside its message, when a policy refused the password.
    public func withPolicyViolations(_ violations: JSON?) -> JSON {
        if let violations { self["policyViolations"] = violations }
        return self
    }
}
