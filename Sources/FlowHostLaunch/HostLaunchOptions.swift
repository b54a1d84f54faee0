import FlowHostCore
import FlowHostPOSIX
import FlowHostServices
import JSONRPC
import Logging

/// What every command that loads flows is told: where flows come from,
/// which to trust, the config, the trace, the contract and the log level.
/// Plain values: `flowhost` fills them from its own small parser, and
/// `flowhost-cli` from swift-argument-parser's `HostOptions`.
public struct HostLaunchOptions: Equatable, Sendable {
    public var pluginDirectories: [String] = []
    public var noDefaultPlugins = false
    public var examples = false
    public var strict = false
    public var pinArguments: [String] = []
    public var pinnedOnly = false
    public var config: String?
    public var trace: String?
    public var contract: String?
    public var logLevel: String?
    /// `--isolate NAME`: flows run in a process of their own.
    public var isolate: [String] = []
    /// `--isolate-all`.
    public var isolateAll = false

    public init() {}

    /// `--plugins` folders (a relative one is taken from the working
    /// folder: the operator typed it), then FLOWHOST_PLUGIN_PATH (where a
    /// relative or empty entry is refused: it would load from wherever the
    /// host happens to run), then the built-in flows' folder
    /// (`builtInFolder`).
    public func searchPath() -> [PluginDirectory] {
        var directories = pluginDirectories.map {
            PluginDirectory(path: $0.hasPrefix("/") ? $0 : ExecutableLocation.workingDirectory() + "/" + $0)
        }
        if let environment = SystemEnvironment.value("FLOWHOST_PLUGIN_PATH") {
            directories += environment.split(separator: ":", omittingEmptySubsequences: false).map {
                PluginDirectory(path: $0.isEmpty ? "(empty entry in FLOWHOST_PLUGIN_PATH)" : String($0), origin: .pluginPath)
            }
        }
        if !noDefaultPlugins, let executable = ExecutableLocation.directory() {
            directories.append(PluginDirectory(path: Self.builtInFolder(executable), requiredPrefix: "libFlowPlugin", origin: .builtIn))
        }
        if examples, let executable = ExecutableLocation.directory() {
            directories.append(PluginDirectory(path: Self.builtInFolder(executable), requiredPrefix: "libFlowExample", origin: .example))
        }
        return directories
    }

    /// Where the flows built with the host are: for an executable installed
    /// in a `bin` folder (the Debian package's /usr/bin), `../lib/flowhost/plugins`,
    /// since a bin folder holds no libraries; anywhere else (a build folder, a
    /// folder of its own) beside the executable. Decided from the path alone,
    /// so a start makes no extra system call.
    public static func builtInFolder(_ executableFolder: String) -> String {
        guard executableFolder == "/bin" || executableFolder.hasSuffix("/bin") else { return executableFolder }
        return executableFolder.dropLast(4) + "/lib/flowhost/plugins"
    }

    /// `--trace FILE`, else FLOWHOST_TRACE: the frame trace, if asked for.
    public func frameTrace() throws(LaunchError) -> FrameTrace? {
        guard let path = trace ?? SystemEnvironment.value("FLOWHOST_TRACE"), !path.isEmpty else { return nil }
        do { return try FrameTrace(path: path) } catch { throw .usage("cannot open the trace file: \(error)") }
    }

    /// `--contract`, else FLOWHOST_CONTRACT, else the first contract found
    /// from the executable: installed beside it or in ../share/flowhost, or,
    /// for a build in a source tree (`.build/debug`), that tree's `Protocol/`.
    /// A named file that cannot be read stops the host; a searched one that
    /// is absent is no contract.
    public func publishedContract() throws(LaunchError) -> PublishedContract? {
        if let named = contract ?? SystemEnvironment.value("FLOWHOST_CONTRACT"), !named.isEmpty {
            if named == "none" { return nil }
            do { return try PublishedContract(path: named) } catch { throw .usage("cannot read the contract \(named): \(error)") }
        }
        guard var folder = ExecutableLocation.directory() else { return nil }
        var candidates = [folder + "/openrpc.json", folder + "/../share/flowhost/openrpc.json"]
        for _ in 0..<4 {
            guard let above = folder.folderPart, !above.isEmpty else { break }
            folder = above
            candidates.append(folder + "/Protocol/openrpc.json")
        }
        return candidates.lazy.compactMap { try? PublishedContract(path: $0) }.first
    }

    /// Where the message catalogs (`<language>.po`) are looked for, in
    /// order: FLOWHOST_LOCALE_DIR; beside the executable (`locale/`) or in
    /// ../share/flowhost/locale; for a build in a source tree, that tree's
    /// `Protocol/locale/`. Asked only when a language other than English is
    /// set, never at start.
    public static func catalogFolders() -> [String] {
        var folders: [String] = []
        if let named = SystemEnvironment.value("FLOWHOST_LOCALE_DIR"), !named.isEmpty { folders.append(named) }
        guard var folder = ExecutableLocation.directory() else { return folders }
        folders += [folder + "/locale", folder + "/../share/flowhost/locale"]
        for _ in 0..<4 {
            guard let above = folder.folderPart, !above.isEmpty else { break }
            folder = above
            folders.append(folder + "/Protocol/locale")
        }
        return folders
    }

    public func makeLogger() throws(LaunchError) -> Logger {
        let name = logLevel ?? SystemEnvironment.value("FLOWHOST_LOG_LEVEL") ?? "warning"
        guard let level = Logger.Level(rawValue: name) else { throw .usage("unknown log level \(name)") }
        let sink = StderrSink()
        LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: level, sink: sink) }
        return Logger(label: "flowhost")
    }

    public func loadConfiguration() throws(LaunchError) -> HostConfiguration {
        guard let config else { return HostConfiguration() }
        do { return try HostConfiguration.load(path: config, moduleSections: HostModules.configSections) } catch { throw .usage("\(error)") }
    }

    /// The config's pins, with `--pin` and `--pinned-only` over them.
    public func pins(_ configuration: HostConfiguration) throws(LaunchError) -> PluginPins {
        var pins = configuration.pins
        do {
            for argument in pinArguments { try pins.pin(argument: argument) }
        } catch {
            throw .usage(error.description)
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
    public func loadPlugins(
        into engine: HostEngine, configuration: HostConfiguration, hostOffers: Set<String> = []
    ) throws(LaunchError) -> [HostEngine.UnofferedService] {
        let (found, refusals) = PluginLoader.candidates(in: searchPath(), pins: try pins(configuration))
        // Each is loaded from its descriptor (an isolated flow's proxy keeps a copy of its own).
        defer { found.forEach { $0.closeDescriptor() } }
        for refusal in refusals { engine.refuse(refusal) }
        if strict, !refusals.isEmpty { throw .exit(3) }
        let isolation = isolation(configuration)
        // Looked up only when a flow is isolated: nothing is added to a plain start.
        let executable = isolation.isActive ? (ExecutableLocation.directory() ?? ".") + "/flowhost" : ""
        // With names to isolate (not all), one child first tells every library's flow.
        let names = isolation.isActive && !isolation.all
            ? FlowNameProbe.names(of: found, executable: executable, settings: isolation) : [:]
        if isolation.isActive, !isolation.all {
            engine.logger.info("flow names learnt in one child process: \(names.count) of \(found.count) libraries")
        }
        var candidates: [LoadedPlugin] = []
        for candidate in found {
            switch Self.open(candidate, isolation: isolation, executable: executable, probedName: names[candidate.path]) {
            case .success(let plugin): candidates.append(plugin)
            case .failure(let refusal): engine.refuse(refusal)
            }
        }
        engine.install(candidates) { configuration.flowSections[$0] ?? .object() }
        if strict, !engine.refusals.isEmpty { throw .exit(3) }
        // A name to isolate that no loaded flow has is a slip the operator
        // must hear of: the flow meant may be running in process.
        let installed = Set(engine.plugins.filter(\.isIsolated).map(\.name))
        if let missing = isolation.flows.subtracting(installed).sorted().first {
            throw .usage("--isolate \(missing): no flow of that name was loaded in a process of its own")
        }
        return engine.unofferedServices(hostOffers: hostOffers)
    }

    /// The config's `isolation` section with `--isolate` and `--isolate-all` over it.
    public func isolation(_ configuration: HostConfiguration) -> IsolationSettings {
        var settings = configuration.isolation
        settings.flows.formUnion(isolate)
        if isolateAll { settings.all = true }
        return settings
    }

    /// One library, in process or in a child. A flow's name is known only
    /// once its library is loaded: with `--isolate NAME` the names child
    /// told it (`probedName`), or else the library is loaded in a child
    /// first and kept there when its flow is named.
    private static func open(
        _ candidate: PluginCandidate, isolation: IsolationSettings, executable: String, probedName: String?
    ) -> Result<LoadedPlugin, PluginRefusal> {
        guard isolation.isActive else { return PluginLoader.open(candidate) }
        if let probedName, !isolation.all {
            // Known from the names child. A library that tells another name
            // in process than it told there ends up not isolated, and the
            // check after install stops the host.
            return isolation.flows.contains(probedName)
                ? PluginLoader.openIsolated(candidate, settings: isolation, executable: executable) : PluginLoader.open(candidate)
        }
        // Not known (the library could not tell, or the names child died):
        // opened in a child of its own, kept there if it is to be isolated.
        let isolated = PluginLoader.openIsolated(candidate, settings: isolation, executable: executable)
        if isolation.all { return isolated }
        if case .success(let plugin) = isolated {
            if isolation.flows.contains(plugin.name) { return isolated }
            plugin.stopIsolation()
        }
        return PluginLoader.open(candidate)
    }
}
