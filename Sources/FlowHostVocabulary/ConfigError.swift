/// A config key refused at start, named in full (`passwords.policy.minL`),
/// so a typo never falls back silently to a default. Every module's
/// settings parser throws this one type.
public struct ConfigError: Error, CustomStringConvertible, Equatable {
    public let key: String
    public let reason: String
    public var description: String { "invalid config: \(key): \(reason)" }

    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }
}
