import FlowHostVocabulary
import FlowJSON

/// The config section `push`: a program run for each notification made for
/// a device that has a push token and no live host (`PushDelivery`), the
/// way the delivery command runs for codes (same runner, same outbox
/// record, same timeout and retries).
public struct PushSettings: Sendable, Equatable {
    /// The program (argv); each push arrives on its stdin as one JSON line.
    public var command: [String]?
    /// How long one run may take before it is killed.
    public var timeoutSeconds = 10
    /// Runs for one push before it is given up.
    public var attempts = 3
    /// The operator's opt-in to the notification's message in the push
    /// (it then passes through the push provider); off, only the subject goes.
    public var includeMessage = false

    public init() {}

    public static let configKey = "push"

    public typealias Invalid = ConfigError

    public static func parse(_ section: JSON?) throws(Invalid) -> PushSettings {
        var settings = PushSettings()
        guard let section else { return settings }
        guard section.kind == .object else { throw Invalid(key: configKey, reason: "must be an object") }
        // The runner's keys, checked as the delivery section checks them.
        let runner = JSON.object()
        for key in section.keys where key != "includeMessage" { runner[key] = section[key]! }
        let parsed = try DeliverySettings.parse(runner, key: configKey)
        (settings.command, settings.timeoutSeconds, settings.attempts) = (parsed.command, parsed.timeoutSeconds, parsed.attempts)
        if let include = section["includeMessage"] {
            guard let flag = include.boolValue else { throw Invalid(key: "\(configKey).includeMessage", reason: "must be true or false") }
            settings.includeMessage = flag
        }
        if settings.command == nil, settings.includeMessage {
            throw Invalid(key: "\(configKey).command", reason: "is required with push.includeMessage")
        }
        return settings
    }
}
