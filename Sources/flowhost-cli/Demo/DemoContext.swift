import FlowHostAudit
import FlowHostCredentials
import FlowHostDelivery
import FlowHostNotifications
import FlowHostServices
import FlowHostStore
import FlowJSON

/// What the scenarios share: the executable to spawn as hosts, and the
/// store they and the operator's commands use.
struct DemoContext: Sendable {
    let executable: String
    let storePath: String
    /// The demo's temporary folder (removed when it ends), for files beside the hosts.
    let folder: String

    /// Starts a host as a device of the demo deployment and initializes it.
    /// `config`: a config file for this host alone (the others use the defaults).
    func startHost(deviceID: String, ldaCapabilities: [Int] = [], config: String? = nil) throws -> DemoClient {
        let client = try DemoClient(
            executable: executable, arguments: ["serve", "--store", storePath, "--examples"] + (config.map { ["--config", $0] } ?? []))
        client.hostRequestHandlers["platform/authenticateLDA"] = { _ in ["authenticated": true] }
        // The demo stands in for an IDV service: the level-4 signing's server biometric matches.
        client.hostRequestHandlers["platform/verifyServerBiometric"] = { _ in ["verified": true] }
        client.echo = false
        defer { client.echo = true }
        let result = try client.call(
            "initialize",
            [
                "protocolVersion": "1.1", "clientInfo": ["name": "flowhost demo", "version": "1"],
                "device": [
                    "deviceID": .string(deviceID), "deviceName": .string("Demo \(deviceID)"),
                    "ldaCapabilities": .array(ldaCapabilities.map(JSON.int)),
                ],
            ])
        let flows = result["flows"]?.elements.compactMap { $0["name"]?.stringValue } ?? []
        print("  ← result: device \(result["device"]?["deviceID"]?.stringValue ?? "?"), flows \(flows.joined(separator: ", "))")
        return client
    }

    /// What the operator does first: `flowhost admin add-user NAME`. The
    /// code reaches the script directly; it is not printed.
    func addUser(_ userID: String) throws -> String {
        let store = try SQLiteStore(path: storePath, schema: HostSchema.migrator)
        let outbox = try OutboxDelivery(keyPath: storePath + ".key")
        let service = CredentialService(DomainContext(store: store), settings: CredentialSettings(), delivery: outbox)
        let issued = try OperatorActions(service).addUser(userID)
        print("  (operator) flowhost admin add-user \(userID) → activation code •••, verification key \(issued.verificationKey)")
        return issued.activationCode
    }

    /// What the delivery channel brings the user (`flowhost admin outbox`):
    /// the latest code sent to `userID`. It reaches the script; it is not printed.
    func deliveredCode(_ userID: String) throws -> String {
        let store = try SQLiteStore(path: storePath, schema: HostSchema.migrator)
        let outbox = try OutboxDelivery(keyPath: storePath + ".key")
        let messages = try store.read { try $0.outbox(includeDelivered: true) }
        let codes = try messages.map { try outbox.open($0) }.filter { $0["userID"]?.stringValue == userID }
        guard let code = codes.last?["activationCode"]?.stringValue else {
            throw DemoClient.Failure(description: "no code was sent to \(userID)")
        }
        print("  (delivery channel) a code for \(userID) → •••")
        return code
    }

    /// What an operator (or a service) does: `flowhost admin notify USER …`.
    func notify(_ userID: String, subject: String, actions: [(String, String, String)]) throws -> String {
        let store = try SQLiteStore(path: storePath, schema: HostSchema.migrator)
        let context = DomainContext(store: store)
        let wake = try FeedWake(path: storePath + ".feed")
        context.ringFeed = { wake.ring() }
        let service = NotificationService(context)
        let uuid = try service.create(
            userID: userID, subject: subject, message: "Invoice 42",
            actions: actions.map { NotificationAction(label: $0.0, action: $0.1, authLevel: $0.2) }, expiresInSeconds: 600)
        print("  (operator) flowhost admin notify \(userID) --subject \"\(subject)\" … → \(uuid)")
        return uuid
    }

    func stop(_ client: DemoClient) throws {
        client.echo = false
        try client.call("shutdown")
        try client.notify("exit")
        let status = try client.finish()
        guard status == 0 else { throw DemoClient.Failure(description: "host exited with \(status)") }
    }
}
