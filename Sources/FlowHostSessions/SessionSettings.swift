import FlowHostVocabulary
import FlowJSON

/// The sessions module's config section, `sessions`: the lifetimes, with
/// NIST SP 800-63B's AAL2 limits as defaults (re-authentication at least
/// every 12 hours, 30 minutes of inactivity).
public struct SessionSettings: Sendable, Equatable {
    /// A session ends after this long without use.
    public var idleTimeoutSeconds: Int64 = 1800
    /// A session ends this long after login, used or not.
    public var lifetimeSeconds: Int64 = 43_200

    public init() {}

    /// The section's key in the host config.
    public static let configKey = "sessions"

    public typealias Invalid = ConfigError

    public static func parse(_ section: JSON?) throws(Invalid) -> SessionSettings {
        var settings = SessionSettings()
        let values = try ConfigSection.integers(
            section, named: configKey, ranges: ["idleTimeoutSeconds": 2...86_400, "lifetimeSeconds": 2...2_592_000])
        if let value = values["idleTimeoutSeconds"] { settings.idleTimeoutSeconds = Int64(value) }
        if let value = values["lifetimeSeconds"] { settings.lifetimeSeconds = Int64(value) }
        return settings
    }
}
