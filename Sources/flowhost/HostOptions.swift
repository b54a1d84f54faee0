import ArgumentParser
import FlowHostCore
import JSONRPC
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Options shared by every subcommand that loads flows.
struct HostOptions: ParsableArguments {
    @Option(name: .customLong("plugins"), help: "A folder of flow libraries (repeatable). Searched before FLOWHOST_PLUGIN_PATH and the folder of the executable.")
    var pluginDirectories: [String] = []

    @Flag(help: "Do not load flows from the folder of the executable.")
    var noDefaultPlugins = false

    @Flag(help: "Stop if any plugin is refused.")
    var strict = false

    @Option(help: "A JSON config file (host limits, each flow's section).")
    var config: String?

    @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "warning"

    func searchPath() -> [PluginDirectory] {
        var directories = pluginDirectories.map { PluginDirectory(path: $0) }
        if let environment = SystemEnvironment.value("FLOWHOST_PLUGIN_PATH") {
            directories += environment.split(separator: ":").map { PluginDirectory(path: String($0)) }
        }
        if !noDefaultPlugins, let executable = Self.executableDirectory() {
            directories.append(PluginDirectory(path: executable, requiredPrefix: "libFlowPlugin"))
        }
        return directories
    }

    static func executableDirectory() -> String? {
        executablePath().map { path in String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
    }

    /// The running executable's real path (Linux: /proc/self/exe).
    static func executablePath() -> String? {
        let argument = realpath("/proc/self/exe", nil) ?? (CommandLine.arguments[0].contains("/") ? realpath(CommandLine.arguments[0], nil) : nil)
        guard let argument else { return nil }
        defer { free(argument) }
        return String(cString: argument)
    }

    func makeLogger() throws -> Logger {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("unknown log level \(logLevel)")
        }
        let sink = StderrSink()
        LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: level, sink: sink) }
        return Logger(label: "flowhost")
    }

    func loadConfiguration() throws -> HostConfiguration {
        guard let config else { return HostConfiguration() }
        do {
            return try HostConfiguration.load(path: config)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Opens, checks and installs every flow. Refusals are logged by the engine.
    func loadPlugins(into engine: HostEngine, configuration: HostConfiguration) throws {
        var candidates: [LoadedPlugin] = []
        for path in PluginLoader.libraryPaths(in: searchPath()) {
            switch PluginLoader.open(path: path) {
            case .success(let plugin): candidates.append(plugin)
            case .failure(let refusal): engine.refuse(refusal)
            }
        }
        engine.install(candidates) { configuration.flowSections[$0] ?? .object() }
        if strict, !engine.refusals.isEmpty {
            throw ExitCode(3)
        }
    }
}
