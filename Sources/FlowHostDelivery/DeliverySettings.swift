import FlowHostVocabulary
import FlowJSON

/// The delivery module's config section, `delivery`: how codes reach their
/// users. Without `command`, codes wait in the sealed outbox for the
/// operator (`flowhost admin outbox`).
public struct DeliverySettings: Sendable, Equatable {
    /// A program that delivers each code (argv); the code arrives on its stdin.
    public var command: [String]?
    /// How long one run of the command may take before it is killed.
    public var timeoutSeconds = 10
    /// Runs of the command for one message before it is given up.
    public var attempts = 3

    public init() {}

    public static let configKey = "delivery"

    public typealias Invalid = ConfigError

    public static func parse(_ section: JSON?) throws(Invalid) -> DeliverySettings { try parse(section, key: configKey) }

    /// The section under `configKey` (also the runner's part of `events`).
    static func parse(_ section: JSON?, key configKey: String) throws(Invalid) -> DeliverySettings {
        var settings = DeliverySettings()
        guard let section else { return settings }
        guard section.kind == .object else { throw Invalid(key: configKey, reason: "must be an object") }
        for key in section.keys {
            let value = section[key]!
            func number(_ range: ClosedRange<Int>) throws(Invalid) -> Int {
                guard let number = value.intValue, range.contains(number) else {
                    throw Invalid(key: "\(configKey).\(key)", reason: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
                }
                return number
            }
            switch key {
            case "command":
                guard value.kind == .array, value.count > 0, value.elements.allSatisfy({ $0.kind == .string }) else {
                    throw Invalid(key: "\(configKey).command", reason: "must be a non-empty array of strings (argv)")
                }
                settings.command = value.elements.compactMap(\.stringValue)
            case "timeoutSeconds": settings.timeoutSeconds = try number(1...600)
            case "attempts": settings.attempts = try number(1...20)
            default: throw Invalid(key: "\(configKey).\(key)", reason: "unknown key")
            }
        }
        return settings
    }
}
