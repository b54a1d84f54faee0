@testable import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostServices
import FlowHostStore
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

/// The host's services are owned by the engine they are registered in; they
/// must not keep it alive. (They did: each service closure held its engine,
/// so every engine ever made stayed in memory; the dispatch fuzzer, which
/// makes one per input, ran out of memory after some 36 000 inputs.)
@Suite struct EngineLifetimeTests {
    @Test func anEngineWithEveryHostModuleIsFreedWhenReleased() throws {
        let fixture = try ThrowAwayStore(HostSchema.migrator)
        let (folder, store) = (fixture.folder.path, fixture.store)
        let domains = HostDomains(store: store, delivery: try OutboxDelivery(keyPath: folder + "/store.sqlite.key"))
        let wake = try FeedWake(path: folder + "/store.sqlite.feed")
        let keyring = try DeviceKeyring(folder: folder + "/devices")

        weak var released: HostEngine?
        do {
            let engine = HostEngine(sink: MemorySink(), logger: Logger(label: "test"))
            HostModules.register(
                domains, feedWake: wake, keyring: keyring, issuer: ReceiptIssuer(path: folder + "/store.sqlite.issuer.key", folder: folder + "/store.sqlite.issuer-keys", store: store), in: engine)
            #expect(engine.names.services.count > 20)
            released = engine
        }
        #expect(released == nil)
    }
}
