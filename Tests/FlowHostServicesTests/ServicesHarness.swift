import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostServices
import FlowHostStore
import FlowHostVocabulary
import FlowJSON
import Foundation
import JSONRPC
import Logging
import TestSupport
@testable import FlowHostCore

/// An engine with every host module over a real SQLite store in a
/// throw-away folder; services are called as the host itself would.
final class ServicesHarness {
    let storage: ThrowAwayStore
    var folder: String { storage.folder.path }
    let domains: HostDomains
    var credentials: CredentialService { domains.credentials }
    let engine: HostEngine

    init(clock: any HostClock = SystemClock()) throws {
        storage = try ThrowAwayStore(HostSchema.migrator)
        let (folder, store) = (storage.folder.path, storage.store)
        domains = HostDomains(store: store, delivery: try OutboxDelivery(keyPath: folder + "/store.sqlite.key"))
        engine = HostEngine(sink: MemorySink(), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), clock: clock)
        HostModules.register(
            domains, feedWake: try FeedWake(path: folder + "/store.sqlite.feed"), keyring: try DeviceKeyring(folder: folder + "/devices"),
            issuer: ReceiptIssuer(path: folder + "/store.sqlite.issuer.key", folder: folder + "/store.sqlite.issuer-keys", store: store), in: engine)
    }

    /// Calls a host service synchronously, with no flow as the caller.
    func call(_ name: String, _ params: JSON) -> Result<JSON?, FlowHostError> { engine.router.callService(name, params: params, from: nil) }
}
