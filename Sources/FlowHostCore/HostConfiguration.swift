import FlowHostPOSIX
import FlowJSON
import JSONRPC

/// The `--config` file: host limits and each flow's own section.
///
/// Every key is checked at start; an unknown key or a wrong type stops the
/// host with a message naming the key, so a typo never falls back silently
/// to a default.
public struct HostConfiguration {
    public var options = HostEngine.Options()
    /// Each flow's section (`flows.<name>`), handed to its create call.
    public var flowSections: [String: JSON] = [:]
    /// Sections read by the host's domain modules (`passwords`, `sessions`, …).
    public var sections: [String: JSON] = [:]
    /// The `plugins` section: the libraries the operator pinned by hash.
    public var pins = PluginPins()
    /// The `isolation` section: flows run in a process of their own.
    public var isolation = IsolationSettings()
    /// `store.feed`: the URL the change feed's LISTEN connection uses
    /// (`--feed-store` and `FLOWHOST_FEED_STORE` win over it).
    public var feedStore: String?

    public init() {}

    public struct Invalid: Error, CustomStringConvertible {
        public let key: String
        public let reason: String
        public var description: String { "invalid config: \(key): \(reason)" }
    }

    /// `moduleSections`: the top-level keys the host's domain modules own
    /// (each module checks its own section's keys).
    public static func load(path: String, moduleSections: Set<String>) throws -> HostConfiguration {
        let data: [UInt8]
        do { data = try SystemFile.read(path) } catch { throw Invalid(key: path, reason: "cannot read the file: \(error)") }
        let root: JSON
        do {
            root = try data.withUnsafeBytes { try JSON.parse($0) }
        } catch {
            throw Invalid(key: path, reason: "not JSON: \(error)")
        }
        return try parse(root, moduleSections: moduleSections)
    }

    public static func parse(_ root: JSON, moduleSections: Set<String> = []) throws(Invalid) -> HostConfiguration {
        guard root.kind == .object else { throw Invalid(key: "(root)", reason: "must be an object") }
        var configuration = HostConfiguration()
        for key in root.keys {
            let value = root[key]!
            switch key {
            case "maxFrameBytes":
                configuration.options.maxFrameBytes = try positive(value, key, max: 1 << 30)
            case "maxNestingDepth":
                configuration.options.maxNestingDepth = try positive(value, key, max: 1000)
            case "challengeTimeoutMs":
                guard let number = value.intValue, number >= 0, number <= 86_400_000 else {
                    throw Invalid(key: key, reason: "must be an integer from 0 (never) to 86400000")
                }
                configuration.options.challengeTimeoutMilliseconds = UInt64(number)
            case "maxServiceCallsInFlight":
                configuration.options.maxServiceCallsInFlight = try positive(value, key, max: 4096)
            case "maxClientRequestsInFlight":
                configuration.options.maxClientRequestsInFlight = try positive(value, key, max: 1024)
            case "clientRequestTimeoutMs":
                configuration.options.clientRequestTimeoutMilliseconds = UInt32(try positive(value, key, max: 86_400_000))
            case "flows":
                guard value.kind == .object else { throw Invalid(key: key, reason: "must be an object") }
                for name in value.keys {
                    guard let section = value[name], section.kind == .object else {
                        throw Invalid(key: "flows.\(name)", reason: "must be an object")
                    }
                    configuration.flowSections[name] = section
                }
            case "isolation":
                configuration.isolation = try IsolationSettings.parse(value)
            case "plugins":
                do { configuration.pins = try PluginPins.parse(value) } catch { throw Invalid(key: key, reason: error.description) }
            case "store":
                configuration.feedStore = try feedStore(value)
            case _ where moduleSections.contains(key):
                configuration.sections[key] = value
            default:
                throw Invalid(key: key, reason: "unknown key")
            }
        }
        return configuration
    }

    /// The `store` section: only `feed`, a non-empty string (a
    /// `postgresql://` URL, checked with the store when it is opened).
    private static func feedStore(_ value: JSON) throws(Invalid) -> String? {
        guard value.kind == .object else { throw Invalid(key: "store", reason: "must be an object") }
        var feed: String?
        for key in value.keys {
            guard key == "feed" else { throw Invalid(key: "store.\(key)", reason: "unknown key") }
            guard let url = value[key]?.stringValue, !url.isEmpty else { throw Invalid(key: "store.feed", reason: "must be a non-empty string") }
            feed = url
        }
        return feed
    }

    private static func positive(_ value: JSON, _ key: String, max: Int) throws(Invalid) -> Int {
        guard let number = value.intValue, number > 0, number <= max else {
            throw Invalid(key: key, reason: "must be an integer from 1 to \(max)")
        }
        return number
    }
}
