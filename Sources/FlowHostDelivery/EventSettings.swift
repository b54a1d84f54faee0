import FlowHostVocabulary
import FlowJSON

/// The config section `events`: a program run for chosen audit rows, after
/// their commit, the way the delivery command runs for codes (same runner,
/// same outbox record, same timeout and retries).
public struct EventSettings: Sendable, Equatable {
    /// The program (argv); each event arrives on its stdin as one JSON line.
    public var command: [String]?
    /// The audit actions it runs for; `*` is every action.
    public var actions: Set<String> = []
    /// How long one run may take before it is killed.
    public var timeoutSeconds = 10
    /// Runs for one event before it is given up.
    public var attempts = 3

    public init() {}

    public static let configKey = "events"

    /// Rows the delivery workers write about their own runs: an event for
    /// one would start another run, for ever.
    public static let ownActions: Set<String> = ["events.command", "delivery.command"]

    public typealias Invalid = ConfigError

    /// Whether a row of `action` is an event.
    public func wants(_ action: String) -> Bool { actions.contains(action) || actions.contains("*") }

    public static func parse(_ section: JSON?) throws(Invalid) -> EventSettings {
        var settings = EventSettings()
        guard let section else { return settings }
        guard section.kind == .object else { throw Invalid(key: configKey, reason: "must be an object") }
        // The runner's keys, checked as the delivery section checks them.
        let runner = JSON.object()
        for key in section.keys where key != "actions" { runner[key] = section[key]! }
        let parsed = try DeliverySettings.parse(runner, key: configKey)
        (settings.command, settings.timeoutSeconds, settings.attempts) = (parsed.command, parsed.timeoutSeconds, parsed.attempts)
        if let actions = section["actions"] {
            let names = actions.elements.compactMap(\.stringValue)
            guard actions.kind == .array, !names.isEmpty, names.count == actions.count else {
                throw Invalid(key: "\(configKey).actions", reason: "must be a non-empty array of audit action names (or \"*\")")
            }
            if let own = names.first(where: ownActions.contains) {
                throw Invalid(key: "\(configKey).actions", reason: "\(own) records the runs of a command: it cannot start one")
            }
            settings.actions = Set(names)
        }
        if settings.command != nil, settings.actions.isEmpty {
            throw Invalid(key: "\(configKey).actions", reason: "is required with events.command")
        }
        if settings.command == nil, !settings.actions.isEmpty {
            throw Invalid(key: "\(configKey).command", reason: "is required with events.actions")
        }
        return settings
    }
}
