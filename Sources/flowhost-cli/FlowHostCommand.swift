import ArgumentParser
import FlowHostCore

struct FlowHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowhost",
        abstract: "Runs device-bound multi-factor authentication flows over JSON-RPC 2.0 on stdin/stdout.",
        version: HostEngine.Options().hostVersion,
        subcommands: [Serve.self, ListPlugins.self, Demo.self, Inspect.self, Admin.self],
        defaultSubcommand: Serve.self
    )
}
