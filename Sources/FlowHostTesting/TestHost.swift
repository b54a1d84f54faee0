import CFlowHostABI
import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostPOSIX
import FlowHostSDK
import FlowHostServices
import FlowHostStore
import FlowJSON
import JSONRPC
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A whole host inside a test process, in the spirit of swift-nio's
/// `EmbeddedChannel`: the real engine, the host's own services over a real
/// SQLite store in a throw-away folder, a clock that moves only when told,
/// and a scripted client (`request`, `nextEvent`, `answer`) in place of
/// stdin and stdout. Flows load as Swift types (`Flow`) or as built
/// libraries (`.so`), through the same C boundary the `flowhost` binary
/// uses, so a flow tested here behaves as it will when loaded.
///
/// Not thread-safe: a test drives it from one thread, as the host's loop
/// would. Each call runs everything that is due before it returns.
public final class TestHost {
    /// The throw-away folder of the store, its keys and its feed file;
    /// removed when the last host on it is released.
    public var folder: String { storage.path }
    let storage: TemporaryFolder
    /// The clock every deadline and every stored time reads: `advance` moves it.
    public let clock: ManualClock
    let engine: HostEngine
    let sink = MemorySink()
    let domains: HostDomains
    lazy var input = FramedInput(connection: engine)
    var nextRequestID = 1
    /// What the scripted client has received (see TestHost+Client.swift).
    var responses: [Int: Result<JSON, FlowHostError>] = [:]
    var eventQueue: [TestEvent] = []
    public internal(set) var events: [TestEvent] = []
    public internal(set) var pendingHostRequests: [TestHostRequest] = []
    var answers: [String: (JSON) -> Result<JSON, FlowHostError>] = [:]

    /// A host with `flows` (Swift types) and the flows of `libraries`
    /// (paths of built `.so` files) installed, in that order. `config` is a
    /// host config as `--config` takes it (each flow's section under
    /// `flows.<name>`); without a `passwords` section Argon2id runs at its
    /// cheapest (8 MiB, one pass) so that tests stay fast. A flow that is
    /// refused (a bad manifest, a taken name, a failed create) throws, with
    /// the host's reason.
    public convenience init(
        flows: [any Flow.Type] = [], libraries: [String] = [], builtInLibraries: [String] = [], config: JSON = .object(),
        logLevel: Logger.Level = .warning
    ) throws {
        let storage: TemporaryFolder
        do { storage = try TemporaryFolder() } catch { throw TestHostError("cannot make a throw-away folder: \(error)") }
        try self.init(
            storage: storage, clock: ManualClock(monotonicMilliseconds: 1_000_000, wallSeconds: Int64(time(nil))),
            flows: flows, libraries: libraries, builtInLibraries: builtInLibraries, config: config, logLevel: logLevel)
    }

    /// A second host on `other`'s store and clock, as a second device (or a
    /// second client on the same machine) would be: what one host commits,
    /// the other reads, and the change feed reaches both. For races, give
    /// both a step and run them in turns. Flows and config are this host's
    /// own, as each process has its own.
    public convenience init(
        beside other: TestHost, flows: [any Flow.Type] = [], libraries: [String] = [], builtInLibraries: [String] = [],
        config: JSON = .object(), logLevel: Logger.Level = .warning
    ) throws {
        try self.init(
            storage: other.storage, clock: other.clock, flows: flows, libraries: libraries, builtInLibraries: builtInLibraries,
            config: config, logLevel: logLevel)
    }

    private init(
        storage: TemporaryFolder, clock: ManualClock, flows: [any Flow.Type], libraries: [String], builtInLibraries: [String],
        config: JSON, logLevel: Logger.Level
    ) throws {
        self.storage = storage
        self.clock = clock
        let folder = storage.path
        let configuration: HostConfiguration
        do {
            // A copy: the caller's config is theirs, and stays as they wrote it.
            let config = config.deepCopy()
            if config["passwords"] == nil { config["passwords"] = ["argon2": ["memoryKiB": 8192, "iterations": 1, "parallelism": 1]] }
            configuration = try HostConfiguration.parse(config, moduleSections: HostModules.configSections)
        } catch {
            throw TestHostError("invalid config: \(error)")
        }
        let logger = Logger(label: "flowhost-testing") { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        engine = HostEngine(options: configuration.options, sink: sink, logger: logger, clock: clock)
        let clock = self.clock
        do {
            let store = try SQLiteStore(path: folder + "/store.sqlite", schema: HostSchema.migrator)
            let settings = try HostSettings(configuration)
            domains = HostDomains(
                store: store, credentials: settings.credentials, sessions: settings.sessions,
                delivery: try OutboxDelivery(keyPath: folder + "/outbox.key"), clock: { clock.wallSeconds })
            let wake = try FeedWake(path: folder + "/store.sqlite.feed")
            domains.context.ringFeed = { wake.ring() }
            HostModules.register(
                domains, feedWake: wake, keyring: try DeviceKeyring(folder: folder + "/devices"),
                issuer: ReceiptIssuer(path: folder + "/issuer.key", folder: folder + "/issuer-keys", store: store), retention: settings.retention, approvals: settings.approvals, webauthn: settings.webauthn, in: engine)
        } catch {
            throw TestHostError("cannot make the throw-away store: \(error)")
        }
        var candidates: [LoadedPlugin] = []
        for type in flows {
            candidates.append(try Self.validated(Self.descriptor(of: type), path: "<\(type)>"))
        }
        for (paths, origin) in [(builtInLibraries, PluginOrigin.builtIn), (libraries, .pluginsOption)] {
            for path in paths {
                switch PluginLoader.open(PluginCandidate(path: path, origin: origin)) {
                case .success(let plugin): candidates.append(plugin)
                case .failure(let refusal): throw TestHostError(refusal.description)
                }
            }
        }
        engine.install(candidates) { configuration.flowSections[$0] ?? .object() }
        if let refusal = engine.refusals.first { throw TestHostError(refusal.description) }
        if let unoffered = engine.unofferedServices().first { throw TestHostError(unoffered.description) }
    }

    deinit {
        engine.destroyPlugins()
    }

    private static func descriptor<F: Flow>(of type: F.Type) -> UnsafeRawPointer { FlowExport.descriptor(for: type) }

    private static func validated(_ descriptor: UnsafeRawPointer, path: String) throws -> LoadedPlugin {
        switch PluginLoader.validate(descriptor: descriptor.assumingMemoryBound(to: flowhost_plugin_descriptor_v1.self), path: path) {
        case .success(let plugin): return plugin
        case .failure(let refusal): throw TestHostError(refusal.description)
        }
    }

    /// The names of the flows installed, in order.
    public var flowNames: [String] { engine.plugins.map(\.name) }

    /// Moves the clock forward and runs every timer and expiry now due.
    public func advance(milliseconds: UInt64) {
        clock.advance(milliseconds: milliseconds)
        engine.fireTimers(now: clock.monotonicMilliseconds)
        pump()
    }

    public func advance(seconds: UInt64) { advance(milliseconds: seconds * 1000) }

    /// The wall clock flows read (`FlowHost.wallClockMilliseconds`) and the
    /// store's times come from, in milliseconds since the epoch; it starts
    /// at the machine's time. `advance` moves it with the monotonic clock.
    /// Set it to step it alone, back or forward, as an NTP correction or an
    /// operator would: nothing on the monotonic clock fires.
    public var wallClockMilliseconds: Int64 {
        get { clock.wallMilliseconds }
        set { clock.wallMilliseconds = newValue }
    }

    /// Adds a user the way the operator does (`flowhost admin add-user`) and
    /// returns the activation code the user would be sent.
    public func addUser(_ userID: String) throws -> String {
        do { return try OperatorActions(domains.credentials).addUser(userID).activationCode } catch {
            throw TestHostError("add-user \(userID): \(error)")
        }
    }
}

/// Something the test host could not do: a refused flow, a bad config, a
/// response that never came.
public struct TestHostError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
