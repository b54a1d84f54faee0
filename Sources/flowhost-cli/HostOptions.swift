import ArgumentParser
import FlowHostCore
import FlowHostLaunch
import Logging

/// Options shared by every subcommand that loads flows: swift-argument-parser's
/// side of `HostLaunchOptions`, which does the work.
struct HostOptions: ParsableArguments {
    @Option(name: .customLong("plugins"), help: "A folder of flow libraries (repeatable). Searched before FLOWHOST_PLUGIN_PATH and the folder of the executable.")
    var pluginDirectories: [String] = []

    @Flag(help: "Do not load flows from the folder of the executable.")
    var noDefaultPlugins = false

    @Flag(help: "Also load the example flows (echo) built beside the executable. Examples are never loaded otherwise: echo exercises the change feed and is no flow to deploy.")
    var examples = false

    @Flag(help: "Stop if any plugin is refused.")
    var strict = false

    @Option(name: .customLong("pin"), help: "FILE=SHA256: load the flow library named FILE only if its content has this SHA-256 (repeatable; added to the config's plugins.pins).")
    var pinArguments: [String] = []

    @Flag(help: "Refuse every flow library that is not pinned (as the config's plugins.pinnedOnly).")
    var pinnedOnly = false

    @Option(name: .customLong("isolate"), help: "Run the flow NAME in a process of its own: a crash, hang or memory blow-up in it ends only its dialogue (repeatable; added to the config's isolation.flows).")
    var isolate: [String] = []

    @Flag(help: "Run every flow in a process of its own (as the config's isolation.flows \"all\").")
    var isolateAll = false

    @Option(help: "A JSON config file (host limits, each flow's section).")
    var config: String?

    @Option(help: "Write every frame in and out to this file, with secrets masked (default: FLOWHOST_TRACE).")
    var trace: String?

    @Option(help: "The published contract rpc.discover adds schemas, host requests and errors from (default: FLOWHOST_CONTRACT, else openrpc.json beside the executable, in ../share/flowhost, or in Protocol/ of a source tree above it; 'none' for the declarations alone).")
    var contract: String?

    @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical (default: FLOWHOST_LOG_LEVEL, else warning).")
    var logLevel: String?

    var launch: HostLaunchOptions {
        var options = HostLaunchOptions()
        options.pluginDirectories = pluginDirectories
        options.noDefaultPlugins = noDefaultPlugins
        options.examples = examples
        options.strict = strict
        options.pinArguments = pinArguments
        options.pinnedOnly = pinnedOnly
        options.isolate = isolate
        options.isolateAll = isolateAll
        options.config = config
        options.trace = trace
        options.contract = contract
        options.logLevel = logLevel
        return options
    }

    func makeLogger() throws -> Logger { try commandLine { () throws(LaunchError) in try launch.makeLogger() } }

    func loadConfiguration() throws -> HostConfiguration { try commandLine { () throws(LaunchError) in try launch.loadConfiguration() } }

    @discardableResult
    func loadPlugins(into engine: HostEngine, configuration: HostConfiguration, hostOffers: Set<String> = []) throws -> [HostEngine.UnofferedService] {
        try commandLine { () throws(LaunchError) in try launch.loadPlugins(into: engine, configuration: configuration, hostOffers: hostOffers) }
    }
}

/// Runs a `FlowHostLaunch` step, reporting its error the command line's way:
/// a usage error with the usage, a stop with its status.
func commandLine<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as LaunchError {
        switch error.kind {
        case .usage: throw ValidationError(error.description)
        case .exit(let status): throw ExitCode(status)
        }
    }
}
