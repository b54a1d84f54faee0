import FlowHostPOSIX
import ArgumentParser
import FlowHostCore
import FlowHostServices
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

    @Flag(help: "Also load the example flows (echo) built beside the executable. Examples are never loaded otherwise: echo exercises the change feed and is no flow to deploy.")
    var examples = false

    @Flag(help: "Stop if any plugin is refused.")
    var strict = false

    @Option(name: .customLong("pin"), help: "FILE=SHA256: load the flow library named FILE only if its content has this SHA-256 (repeatable; added to the config's plugins.pins).")
    var pinArguments: [String] = []

    @Flag(help: "Refuse every flow library that is not pinned (as the config's plugins.pinnedOnly).")
    var pinnedOnly = false

    @Option(help: "A JSON config file (host limits, each flow's section).")
    var config: String?

    @Option(help: "Write every frame in and out to this file, with secrets masked (default: FLOWHOST_TRACE).")
    var trace: String?

    @Option(help: "The published contract rpc.discover adds schemas, host requests and errors from (default: FLOWHOST_CONTRACT, else openrpc.json beside the executable, in ../share/flowhost, or in Protocol/ of a source tree above it; 'none' for the declarations alone).")
    var contract: String?

    @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical (default: FLOWHOST_LOG_LEVEL, else warning).")
    var logLevel: String?

    /// `--plugins` folders (a relative one is taken from the working
    /// folder: the operator typed it), then FLOWHOST_PLUGIN_PATH (where a
    /// relative or empty entry is refused: it would load from wherever the
    /// host happens to run), then the executable's folder.
    func searchPath() -> [PluginDirectory] {
        var directories = pluginDirectories.map { PluginDirectory(path: $0.hasPrefix("/") ? $0 : Self.workingDirectory() + "/" + $0) }
        if let environment = SystemEnvironment.value("FLOWHOST_PLUGIN_PATH") {
            directories += environment.split(separator: ":", omittingEmptySubsequences: false).map {
                PluginDirectory(path: $0.isEmpty ? "(empty entry in FLOWHOST_PLUGIN_PATH)" : String($0), origin: .pluginPath)
            }
        }
        if !noDefaultPlugins, let executable = Self.executableDirectory() {
            directories.append(PluginDirectory(path: executable, requiredPrefix: "libFlowPlugin", origin: .builtIn))
        }
        if examples, let executable = Self.executableDirectory() {
            directories.append(PluginDirectory(path: executable, requiredPrefix: "libFlowExample", origin: .example))
        }
        return directories
    }

    static func workingDirectory() -> String {
        guard let folder = getcwd(nil, 0) else { return "." }
        defer { free(folder) }
        return String(cString: folder)
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

    /// `--trace FILE`, else FLOWHOST_TRACE: the frame trace, if asked for.
    func frameTrace() throws -> FrameTrace? {
        guard let path = trace ?? SystemEnvironment.value("FLOWHOST_TRACE"), !path.isEmpty else { return nil }
        do { return try FrameTrace(path: path) } catch { throw ValidationError("cannot open the trace file: \(error)") }
    }

    /// `--contract`, else FLOWHOST_CONTRACT, else the first contract found
    /// from the executable: installed beside it or in ../share/flowhost, or,
    /// for a build in a source tree (`.build/debug`), that tree's `Protocol/`.
    /// A named file that cannot be read stops the host; a searched one that
    /// is absent is no contract.
    func publishedContract() throws -> PublishedContract? {
        if let named = contract ?? SystemEnvironment.value("FLOWHOST_CONTRACT"), !named.isEmpty {
            if named == "none" { return nil }
            do { return try PublishedContract(path: named) } catch { throw ValidationError("cannot read the contract \(named): \(error)") }
        }
        guard var folder = Self.executableDirectory() else { return nil }
        var candidates = [folder + "/openrpc.json", folder + "/../share/flowhost/openrpc.json"]
        for _ in 0..<4 {
            guard let slash = folder.lastIndex(of: "/"), slash != folder.startIndex else { break }
            folder = String(folder[..<slash])
            candidates.append(folder + "/Protocol/openrpc.json")
        }
        return candidates.lazy.compactMap { try? PublishedContract(path: $0) }.first
    }

    func makeLogger() throws -> Logger {
        let name = logLevel ?? SystemEnvironment.value("FLOWHOST_LOG_LEVEL") ?? "warning"
        guard let level = Logger.Level(rawValue: name) else {
            throw ValidationError("unknown log level \(name)")
        }
        let sink = StderrSink()
        LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: level, sink: sink) }
        return Logger(label: "flowhost")
    }

    func loadConfiguration() throws -> HostConfiguration {
        guard let config else { return HostConfiguration() }
        do {
            return try HostConfiguration.load(path: config, moduleSections: HostModules.configSections)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The config's pins, with `--pin` and `--pinned-only` over them.
    func pins(_ configuration: HostConfiguration) throws -> PluginPins {
        var pins = configuration.pins
        do {
            for argument in pinArguments { try pins.pin(argument: argument) }
        } catch {
            throw ValidationError(error.description)
        }
        if pinnedOnly { pins.pinnedOnly = true }
        return pins
    }

    /// Opens, checks and installs every flow. Refusals are logged by the
    /// engine. With --strict, a refusal found before loading stops the host
    /// before any library is opened, so no refused library's code ever runs.
    /// Returns what the loaded flows' `uses` name that nothing offers
    /// (`hostOffers`: the host's services when the engine has none registered).
    @discardableResult
    func loadPlugins(into engine: HostEngine, configuration: HostConfiguration, hostOffers: Set<String> = []) throws -> [HostEngine.UnofferedService] {
        let (found, refusals) = PluginLoader.candidates(in: searchPath(), pins: try pins(configuration))
        for refusal in refusals { engine.refuse(refusal) }
        if strict, !refusals.isEmpty { throw ExitCode(3) }
        var candidates: [LoadedPlugin] = []
        for candidate in found {
            switch PluginLoader.open(candidate) {
            case .success(let plugin): candidates.append(plugin)
            case .failure(let refusal): engine.refuse(refusal)
            }
        }
        engine.install(candidates) { configuration.flowSections[$0] ?? .object() }
        if strict, !engine.refusals.isEmpty {
            throw ExitCode(3)
        }
        return engine.unofferedServices(hostOffers: hostOffers)
    }
}
