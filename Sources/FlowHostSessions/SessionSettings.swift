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
        guard let section else { return settings }
        guard section.kind == .object else { throw Invalid(key: configKey, reason: "must be an object") }
        for key in section.keys {
            func seconds(_ range: ClosedRange<Int>) throws(Invalid) -> Int64 {
                guard let value = section[key]?.intValue, range.contains(value) else {
                    throw Invalid(key: "\(configKey).\(key)", reason: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
                }
                return Int64(value)
            }
            switch key {
            case "idleTimeoutSeconds": settings.idleTimeoutSeconds = try seconds(2...86_400)
            case "lifetimeSeconds": settings.lifetimeSeconds = try seconds(2...2_592_000)
            default: throw Invalid(key: "\(configKey).\(key)", reason: "unknown key")
            }
        }
        return settings
    }
}
