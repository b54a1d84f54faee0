import CFlowHostIsolation
import FlowJSON

/// Which flows run in a process of their own (`--isolate NAME`,
/// `--isolate-all`, the config's `isolation` section), and what that
/// process may use. Spec §8, "Isolated flows".
public struct IsolationSettings: Sendable, Equatable {
    /// Flows to isolate, by name.
    public var flows: Set<String> = []
    /// Every flow.
    public var all = false
    /// The child's address space (RLIMIT_AS), in MiB.
    public var addressSpaceMiB = 1024
    /// CPU seconds over the child's life (RLIMIT_CPU): a flow that used them
    /// all is killed, and starts again on its next use.
    public var cpuSeconds = 3600
    /// Open files (RLIMIT_NOFILE).
    public var openFiles = 64
    /// The longest the host waits on a silent child before it kills it.
    public var watchdogMilliseconds = 5000
    /// The longest one call into the child may hold the host, from its start
    /// to its answer, the host-table calls it makes meanwhile included: a
    /// flow that is never silent (it asks the host something, again and
    /// again) is still stopped. Twice the watchdog: room for a password's
    /// Argon2id and a few service calls on a loaded or sanitized build.
    public var callBudgetMilliseconds = 10000

    public init() {}

    public var isActive: Bool { all || !flows.isEmpty }

    func isolates(_ name: String) -> Bool { all || flows.contains(name) }

    public var limits: flowhost_isolation_limits {
        flowhost_isolation_limits(
            address_space_bytes: UInt64(addressSpaceMiB) << 20, cpu_seconds: UInt32(cpuSeconds), open_files: UInt32(openFiles),
            watchdog_ms: UInt32(watchdogMilliseconds), call_budget_ms: UInt32(callBudgetMilliseconds))
    }

    /// The config's `isolation` section:
    /// `{"flows": ["mfa", …] | "all", "addressSpaceMiB", "cpuSeconds", "openFiles", "watchdogMs",
    /// "callBudgetMs"}`.
    static func parse(_ section: JSON) throws(HostConfiguration.Invalid) -> IsolationSettings {
        guard section.kind == .object else { throw HostConfiguration.Invalid(key: "isolation", reason: "must be an object") }
        var settings = IsolationSettings()
        func number(_ key: String, _ range: ClosedRange<Int>) throws(HostConfiguration.Invalid) -> Int {
            guard let value = section[key]?.intValue, range.contains(value) else {
                throw HostConfiguration.Invalid(key: "isolation.\(key)", reason: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        for key in section.keys {
            switch key {
            case "flows":
                let value = section[key]!
                if value.stringValue == "all" {
                    settings.all = true
                } else if value.kind == .array, value.elements.allSatisfy({ $0.stringValue?.isEmpty == false }) {
                    settings.flows = Set(value.elements.compactMap(\.stringValue))
                } else {
                    throw HostConfiguration.Invalid(key: "isolation.flows", reason: "must be \"all\" or an array of flow names")
                }
            case "addressSpaceMiB": settings.addressSpaceMiB = try number(key, 64...1_048_576)
            case "cpuSeconds": settings.cpuSeconds = try number(key, 1...31_536_000)
            case "openFiles": settings.openFiles = try number(key, 8...65_536)
            case "watchdogMs": settings.watchdogMilliseconds = try number(key, 100...3_600_000)
            case "callBudgetMs": settings.callBudgetMilliseconds = try number(key, 100...3_600_000)
            default:
                throw HostConfiguration.Invalid(key: "isolation.\(key)", reason: "unknown key")
            }
        }
        return settings
    }
}
