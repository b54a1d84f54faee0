import ArgumentParser
import FlowJSON
import Foundation

/// `flowhost demo`: the main job. Spawns this same executable as a server on
/// a temporary store and walks through every flow, printing the exchange.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a scripted session of every flow against a temporary store.")

    @Option(help: "Use this store file instead of a temporary one.")
    var store: String?

    func run() throws {
        guard let executable = HostOptions.executablePath() else { throw ValidationError("cannot find my own executable") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowhost-demo-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = DemoContext(executable: executable, storePath: store ?? folder.appendingPathComponent("demo.sqlite").path)

        for scenario in DemoScenario.all {
            print("\n== \(scenario.title)")
            try scenario.run(context)
        }
        print("\nDemo finished: every scenario ran as scripted.")
    }
}

struct DemoContext: Sendable {
    let executable: String
    let storePath: String

    /// Starts a host as a device of the demo deployment and initializes it.
    func startHost(deviceID: String, ldaCapabilities: [Int] = []) throws -> DemoClient {
        let client = try DemoClient(executable: executable, arguments: ["serve", "--store", storePath])
        client.hostRequestHandlers["platform/authenticateLDA"] = { _ in ["authenticated": true] }
        try client.call(
            "initialize",
            [
                "protocolVersion": "1.0", "clientInfo": ["name": "flowhost demo", "version": "1"],
                "device": [
                    "deviceID": .string(deviceID), "deviceName": .string("Demo \(deviceID)"),
                    "ldaCapabilities": .array(ldaCapabilities.map(JSON.int)),
                ],
            ])
        return client
    }

    func stop(_ client: DemoClient) throws {
        client.echo = false
        try client.call("shutdown")
        try client.notify("exit")
        let status = try client.finish()
        guard status == 0 else { throw DemoClient.Failure(description: "host exited with \(status)") }
    }
}

/// One scripted walk through a flow.
struct DemoScenario: Sendable {
    let title: String
    let run: @Sendable (DemoContext) throws -> Void

    static var all: [DemoScenario] { [echo] }

    static let echo = DemoScenario(title: "The C example flow: a method and its event") { context in
        let client = try context.startHost(deviceID: "demo-echo")
        try client.call("echo", ["text": "hello from a flow written in C", "notify": true])
        try client.waitEvent("onEcho")
        try context.stop(client)
    }
}
