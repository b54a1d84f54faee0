import ArgumentParser
import FlowHostCore
import FlowHostDelivery
import FlowHostDevices
import FlowHostLaunch
import FlowHostServices
import FlowHostStore

/// Where the store is: swift-argument-parser's side of `StoreLocation`, which does the work.
struct StoreOptions: ParsableArguments {
    @Option(help: "The store: a SQLite file, or a postgresql:// URL without a password (default: FLOWHOST_STORE, else ~/.local/share/flowhost/flowhost.sqlite).")
    var store: String?

    @Option(help: "With a PostgreSQL store, the folder of this host's own files: the outbox key and host-custody device keys (default: FLOWHOST_STATE_DIR, else ~/.local/share/flowhost).")
    var stateDir: String?

    @Option(help: "The folder of this host's device keys (host custody; default: devices/ beside the store).")
    var deviceDir: String?

    var location: StoreLocation { StoreLocation(store: store, stateDir: stateDir, deviceDir: deviceDir) }

    func keyring() throws -> DeviceKeyring { try commandLine { () throws(LaunchError) in try location.keyring() } }

    func domains(_ parsed: HostSettings) throws -> HostDomains { try commandLine { try location.domains(parsed) } }

    func issuer(store: any FlowStore) throws -> ReceiptIssuer { try commandLine { try location.issuer(store: store) } }

    func outbox() throws -> OutboxDelivery { try commandLine { try location.outbox() } }
}

extension HostSettings {
    /// The config's domain sections, or the error that names the bad key, with the usage.
    static func validated(_ configuration: HostConfiguration) throws -> HostSettings {
        try commandLine { () throws(LaunchError) in try HostSettings(validating: configuration) }
    }
}
