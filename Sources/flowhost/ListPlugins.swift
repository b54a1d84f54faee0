import ArgumentParser
import FlowHostCore
import JSONRPC

/// `flowhost plugins`: what would load, and why anything would not.
struct ListPlugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins", abstract: "List the flows that load and the plugins refused.")

    @OptionGroup var host: HostOptions

    func run() throws {
        let logger = try host.makeLogger()
        let configuration = try host.loadConfiguration()
        let engine = HostEngine(options: configuration.options, sink: MemorySink(), logger: logger)
        var strictFailure: Error?
        do { try host.loadPlugins(into: engine, configuration: configuration) } catch { strictFailure = error }
        for plugin in engine.plugins {
            let methods = plugin.manifest.methods.map(\.name).joined(separator: ",")
            let services = plugin.manifest.services.map(\.name).joined(separator: ",")
            let uses = plugin.manifest.uses.sorted().joined(separator: ",")
            print(
                "loaded  \(plugin.name) \(plugin.version) abi=\(plugin.abiVersion).\(plugin.abiMinor) methods=\(methods)"
                    + (services.isEmpty ? "" : " services=\(services)") + (uses.isEmpty ? "" : " uses=\(uses)") + " \(plugin.path)")
        }
        for refusal in engine.refusals {
            print("refused \(refusal.path): \(refusal.reason)")
        }
        engine.destroyPlugins()
        if let strictFailure { throw strictFailure }
    }
}
