import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostPOSIX
import FlowHostServices
import FlowHostStore
import FlowJSON
import FuzzSupport
import JSONRPC
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The whole dispatcher, fuzzed: a host with the real flows loaded (from
/// FLOWHOST_FUZZ_PLUGINS, the folder of the built `libFlowPlugin*.so`, and the `libFlowExample*.so` echo the corpus calls) on a
/// scratch store where alice is active with a password and bob is pending.
/// Each input is fed, as a client's bytes, to a fresh engine after its
/// `initialize`; the store carries over (as a real one would).
final class DispatchFixture {
    /// The one fixture of this process. libFuzzer runs inputs one at a time
    /// on one thread; nothing else touches it.
    nonisolated(unsafe) static let shared = DispatchFixture()

    let domains: HostDomains
    let feedWake: FeedWake
    let keyring: DeviceKeyring
    let issuer: ReceiptIssuer
    let plugins: [PluginCandidate]
    let logger = Logger(label: "fuzz")
    static let initialize = Array(
        #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1.1","device":{"deviceID":"fuzz-device","deviceName":"fuzz","ldaCapabilities":[1]}}}"#
            .utf8) + [0x0A]

    init() {
        LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }  // stdout is not a terminal here, and logs are not the point
        let folder = Self.scratchFolder()
        do {
            let store = try SQLiteStore(path: folder + "/store.sqlite", schema: HostSchema.migrator)
            let settings = try CredentialSettings.parse(
                passwords: ["argon2": ["memoryKiB": 8, "iterations": 1, "parallelism": 1]], activation: nil)
            domains = HostDomains(store: store, credentials: settings, delivery: try OutboxDelivery(keyPath: folder + "/store.sqlite.key"))
            feedWake = try FeedWake(path: folder + "/store.sqlite.feed")
            keyring = try DeviceKeyring(folder: folder + "/devices")
            issuer = ReceiptIssuer(path: folder + "/store.sqlite.issuer.key", folder: folder + "/store.sqlite.issuer-keys", store: store)
            _ = try OperatorActions(domains.credentials).addUser("alice")
            _ = try OperatorActions(domains.credentials).addUser("bob")
        } catch {
            fatalError("fuzz fixture: \(error)")
        }
        let pluginFolder = String(cString: getenv("FLOWHOST_FUZZ_PLUGINS") ?? strdup(".build/debug"))
        let (found, refusals) = PluginLoader.candidates(in: [
            PluginDirectory(path: pluginFolder, requiredPrefix: "libFlowPlugin", origin: .builtIn),
            PluginDirectory(path: pluginFolder, requiredPrefix: "libFlowExample", origin: .example),
        ])
        plugins = found
        if plugins.isEmpty {
            fatalError("fuzz fixture: no libFlowPlugin*.so in \(pluginFolder) (set FLOWHOST_FUZZ_PLUGINS to an absolute path); \(refusals)")
        }
    }

    /// The scratch store's folder, private and new for this process, and
    /// removed with what is in it when the process exits (libFuzzer ends
    /// with `exit`), so no run leaves a store behind.
    static func scratchFolder() -> String {
        do { scratch = try TemporaryFolder(prefix: "flowhost-fuzz") } catch { fatalError("fuzz fixture: \(error)") }
        atexit { DispatchFixture.scratch = nil }
        return scratch!.path
    }

    /// The folder's one owner, let go by the exit handler (a C function,
    /// which captures nothing). Set once, before libFuzzer runs any input,
    /// on its one thread.
    nonisolated(unsafe) static var scratch: TemporaryFolder?

    func run(_ input: UnsafeRawBufferPointer) {
        let sink = MemorySink()
        let engine = HostEngine(sink: sink, logger: logger)
        HostModules.register(domains, feedWake: feedWake, keyring: keyring, issuer: issuer, in: engine)
        let loaded = plugins.compactMap { try? PluginLoader.open($0).get() }
        engine.install(loaded) { _ in .object() }
        var framed = FramedInput(connection: engine)
        Self.initialize.withUnsafeBytes { framed.push($0) }
        framed.push(input)
        framed.finish()
        engine.destroyPlugins()
    }
}

func fuzzDispatch(_ input: UnsafeRawBufferPointer) {
    DispatchFixture.shared.run(input)
}

@main struct FuzzMain {
    static func main() { FuzzEntry.run(fuzzDispatch) }
}
