import FlowJSON

/// A config section of bounded integers (`sessions`, `retention`,
/// `approvals`): an object whose every key is known and whose every value
/// is an integer in that key's range; anything else is a `ConfigError`
/// naming the key in full, so a typo never falls back to a default.
public enum ConfigSection {
    /// The values given (absent keys are absent); nil section: none.
    public static func integers(_ section: JSON?, named name: String, ranges: [String: ClosedRange<Int>]) throws(ConfigError) -> [String: Int] {
        guard let section else { return [:] }
        guard section.kind == .object else { throw ConfigError(key: name, reason: "must be an object") }
        var values: [String: Int] = [:]
        for key in section.keys {
            guard let range = ranges[key] else { throw ConfigError(key: "\(name).\(key)", reason: "unknown key") }
            guard let value = section[key]?.intValue, range.contains(value) else {
                throw ConfigError(key: "\(name).\(key)", reason: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            values[key] = value
        }
        return values
    }
}
