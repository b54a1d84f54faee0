import FlowHostCore
import FlowHostPOSIX
import FlowHostVocabulary
import JSONRPC
import Logging

extension HostLaunchOptions {
    /// `flows`: every library in the plugin folders loads (none refused, at
    /// least one loaded) and every service a flow uses is offered; `pins`:
    /// every pinned file is a library that loaded (a pin that matches
    /// nothing is a typo or a missing flow). The flows are loaded and installed as
    /// a host loads them, isolated ones in their own processes, then
    /// destroyed; none is called.
    public func flowChecks(_ configuration: HostConfiguration, logger: Logger) throws(LaunchError) -> [HealthCheck] {
        let pins = try pins(configuration)
        let engine = HostEngine(options: configuration.options, sink: MemorySink(), logger: logger)
        defer { engine.destroyPlugins() }
        var checking = self
        checking.strict = false  // every refusal is reported, not the first alone
        let unoffered = try checking.loadPlugins(into: engine, configuration: configuration, hostOffers: Services.offeredByHost)
        var problems = engine.refusals.map { "refused \($0.path): \($0.reason)" } + unoffered.map(\.description)
        if engine.plugins.isEmpty { problems.append("no flow loaded from \(searchPath().map(\.path).joined(separator: ", "))") }
        let names = engine.plugins.map(\.name).sorted().joined(separator: ", ")
        let flows = problems.isEmpty
            ? HealthCheck("flows", passed: true, "\(engine.plugins.count) loaded: \(names)")
            : HealthCheck.failed("flows", problems.joined(separator: "; "))
        guard !pins.isEmpty else { return [flows, HealthCheck("pins", passed: true, "none set")] }
        // A pinned library that differs from its pin is refused, so every pin
        // must name a library that loaded.
        let loaded = Set(engine.plugins.map(\.path.namePart))
        let refused = Dictionary(engine.refusals.map { ($0.path.namePart, $0.reason) }, uniquingKeysWith: { first, _ in first })
        let pinProblems = pins.hashes.keys.filter { !loaded.contains($0) }.sorted().map { file in
            "pin \(file): " + (refused[file].map { "refused, \($0)" } ?? "no library of that name in the plugin folders")
        }
        let pinsCheck = pinProblems.isEmpty
            ? HealthCheck("pins", passed: true, "\(pins.hashes.count) pinned, each loaded" + (pins.pinnedOnly ? "; only pinned libraries load" : ""))
            : HealthCheck.failed("pins", pinProblems.joined(separator: "; "))
        return [flows, pinsCheck]
    }
}
