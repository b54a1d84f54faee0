/// The serve command line, read without swift-argument-parser: the host's
/// start is most of its cost for a client that spawns it per task, and
/// the parser's reflection (with Foundation, which it links) was a quarter
/// of that start. Only the well-formed forms are read here; anything else
/// (help, a subcommand, a typo, a missing or doubled value) is `nil`, and
/// `flowhost` hands the whole command line to `flowhost-cli`, whose parser
/// reports it. A unit test holds the two parsers to the same options.
public struct ServeArguments: Equatable, Sendable {
    public var host = HostLaunchOptions()
    public var storage = StoreLocation()
    public var maxFrameBytes: Int?
    /// `--peer-group GROUP`: serve a Unix-domain socket's peer only if it is
    /// root, this host's user or in GROUP (`PeerAdmission`).
    public var peerGroup: String?

    public init() {}

    /// Every option the serve command takes, by kind.
    public static let flags: Set<String> = ["--no-default-plugins", "--examples", "--strict", "--pinned-only", "--isolate-all"]
    public static let repeatable: Set<String> = ["--plugins", "--pin", "--isolate"]
    public static let single: Set<String> = [
        "--config", "--trace", "--contract", "--log-level", "--store", "--feed-store", "--state-dir", "--device-dir", "--max-frame-bytes",
        "--peer-group",
    ]

    /// The arguments after the executable's name, or nil when they are not a
    /// plain serve command line.
    public static func parse(_ arguments: [String]) -> ServeArguments? {
        var parsed = ServeArguments()
        var seen: Set<String> = []
        var rest = arguments[...]
        if rest.first == "serve" { rest = rest.dropFirst() }
        while let argument = rest.popFirst() {
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            if flags.contains(name) {
                guard value == nil, seen.insert(name).inserted else { return nil }
                switch name {
                case "--no-default-plugins": parsed.host.noDefaultPlugins = true
                case "--examples": parsed.host.examples = true
                case "--strict": parsed.host.strict = true
                case "--isolate-all": parsed.host.isolateAll = true
                default: parsed.host.pinnedOnly = true
                }
                continue
            }
            guard repeatable.contains(name) || single.contains(name) else { return nil }
            if value == nil { value = rest.popFirst() }
            // A value that looks like an option is the parser's to judge.
            guard let value, !value.hasPrefix("-") else { return nil }
            if single.contains(name), !seen.insert(name).inserted { return nil }
            switch name {
            case "--plugins": parsed.host.pluginDirectories.append(value)
            case "--pin": parsed.host.pinArguments.append(value)
            case "--isolate": parsed.host.isolate.append(value)
            case "--config": parsed.host.config = value
            case "--trace": parsed.host.trace = value
            case "--contract": parsed.host.contract = value
            case "--log-level": parsed.host.logLevel = value
            case "--store": parsed.storage.store = value
            case "--feed-store": parsed.storage.feedStore = value
            case "--state-dir": parsed.storage.stateDir = value
            case "--device-dir": parsed.storage.deviceDir = value
            case "--peer-group": parsed.peerGroup = value
            default:
                guard let bytes = Int(value), bytes > 0 else { return nil }
                parsed.maxFrameBytes = bytes
            }
        }
        return parsed
    }
}
