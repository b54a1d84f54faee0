import ArgumentParser
import FlowHostCore
import FlowHostCredentials
import FlowHostStore
import JSONRPC

/// Where the store is, and the credential service over it.
struct StoreOptions: ParsableArguments {
    @Option(help: "The store file (default: FLOWHOST_STORE, else ~/.local/share/flowhost/flowhost.sqlite).")
    var store: String?

    var path: String {
        if let store { return store }
        if let environment = SystemEnvironment.value("FLOWHOST_STORE"), !environment.isEmpty { return environment }
        return SQLiteStore.defaultPath()
    }

    /// Opens the store and builds the credential service with the config's settings.
    func credentials(_ configuration: HostConfiguration) throws -> CredentialService {
        let settings: CredentialSettings
        do {
            settings = try CredentialSettings.parse(
                passwords: configuration.sections["passwords"], activation: configuration.sections["activation"])
        } catch {
            throw ValidationError(error.description)
        }
        let store = try SQLiteStore(path: path)
        let delivery: any CodeDelivery =
            if let command = settings.deliveryCommand { CommandDelivery(argv: command) } else { try outbox() }
        return CredentialService(store: store, settings: settings, delivery: delivery)
    }

    /// The outbox, sealed with a key kept beside the store file.
    func outbox() throws -> OutboxDelivery {
        try OutboxDelivery(keyPath: path + ".key")
    }
}
