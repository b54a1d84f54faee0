import ArgumentParser
import FlowHostCore
import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// `flowhost plugins`: what would load, and why anything would not.
struct ListPlugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins", abstract: "List the flows that load, the plugins refused, and services used that nothing offers.")

    @OptionGroup var host: HostOptions

    @Flag(help: "Print one JSON object: each flow with its origin and SHA-256, the refusals and the warnings.")
    var json = false

    func run() throws {
        let logger = try host.makeLogger()
        let configuration = try host.loadConfiguration()
        let engine = HostEngine(options: configuration.options, sink: MemorySink(), logger: logger)
        var strictFailure: Error?
        var unoffered: [HostEngine.UnofferedService] = []
        // No store is opened here, so the host's own services are named from the contract.
        do { unoffered = try host.loadPlugins(into: engine, configuration: configuration, hostOffers: Services.offeredByHost) } catch {
            strictFailure = error
        }
        if json { printJSON(engine, unoffered) } else { printLines(engine, unoffered) }
        engine.destroyPlugins()
        if let strictFailure { throw strictFailure }
    }

    private func printLines(_ engine: HostEngine, _ unoffered: [HostEngine.UnofferedService]) {
        for plugin in engine.plugins {
            let methods = plugin.manifest.methods.map(\.name).joined(separator: ",")
            let services = plugin.manifest.services.map(\.name).joined(separator: ",")
            let uses = plugin.manifest.uses.sorted().joined(separator: ",")
            print(
                "loaded  \(plugin.name) \(plugin.version) abi=\(plugin.abiVersion).\(plugin.abiMinor) methods=\(methods)"
                    + (services.isEmpty ? "" : " services=\(services)") + (uses.isEmpty ? "" : " uses=\(uses)")
                    + (plugin.isIsolated ? " isolated(\(plugin.confinement ?? ""))" : "") + " \(plugin.path)")
        }
        for refusal in engine.refusals {
            print("refused \(refusal.path): \(refusal.reason)")
        }
        for warning in unoffered {
            print("warning \(warning.description)")
        }
    }

    private func printJSON(_ engine: HostEngine, _ unoffered: [HostEngine.UnofferedService]) {
        let flows: [JSON] = engine.plugins.map { plugin in
            let sha256 = plugin.sha256 ?? (try? PluginDigest.sha256(ofFile: plugin.path).get())
            return [
                "name": .string(plugin.name), "version": .string(plugin.version), "abi": .string("\(plugin.abiVersion).\(plugin.abiMinor)"),
                "origin": .string(plugin.origin.rawValue), "path": .string(plugin.path), "sha256": sha256.map { .string($0) } ?? .null,
                "methods": .array(plugin.manifest.methods.map { .string($0.name) }),
                "services": .array(plugin.manifest.services.map { .string($0.name) }),
                "uses": .array(plugin.manifest.uses.sorted().map { .string($0) }),
                "manifest": (try? JSON.parse(plugin.manifestText)) ?? .null,
                // In a process of its own (--isolate), and what confines that process.
                "isolated": .bool(plugin.isIsolated), "confinement": plugin.confinement.map { .string($0) } ?? .null,
            ]
        }
        let refused: [JSON] = engine.refusals.map { ["path": .string($0.path), "reason": .string($0.reason)] }
        let warnings: [JSON] = unoffered.map {
            ["flow": .string($0.flow), "service": .string($0.service), "nearest": $0.nearest.map { .string($0) } ?? .null,
             "message": .string($0.description)]
        }
        let document: JSON = ["flows": .array(flows), "refused": .array(refused), "unoffered": .array(warnings)]
        print(document.serialized())
    }
}
