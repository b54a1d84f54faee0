import ArgumentParser
import CFlowHostSystem
import FlowHostCore
import FlowHostNotifications
import FlowHostServices
import JSONRPC

#if canImport(Glibc)
import Glibc
#endif

/// The protocol server: the default subcommand.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve JSON-RPC 2.0 on stdin/stdout (the default).")

    @OptionGroup var host: HostOptions
    @OptionGroup var storage: StoreOptions

    @Option(help: "Largest frame in bytes (default 1 MiB).")
    var maxFrameBytes: Int?

    func run() throws {
        // Before any JSON exists: every block jansson frees is wiped first.
        flowhost_json_wipe_on_free()
        signal(SIGPIPE, SIG_IGN)
        let frameFD = try StdoutGuard.engage()
        let logger = try host.makeLogger()
        var configuration = try host.loadConfiguration()
        if let maxFrameBytes {
            guard maxFrameBytes > 0 else { throw ValidationError("--max-frame-bytes must be positive") }
            configuration.options.maxFrameBytes = maxFrameBytes
        }
        let trace = try host.frameTrace()
        let frames: FrameSink = trace.map { TracingSink(inner: FileDescriptorSink(fd: frameFD), trace: $0) } ?? FileDescriptorSink(fd: frameFD)
        let engine = HostEngine(options: configuration.options, sink: frames, logger: logger)
        engine.frameTrace = trace
        engine.publishedContract = try host.publishedContract()
        let settings = try HostSettings(validating: configuration)
        let domains = try storage.domains(settings, logger: logger, deliver: true)
        HostModules.register(domains, feedWake: try storage.feedWake(),
            keyring: try storage.keyring(), issuer: try storage.issuer(), retention: settings.retention, approvals: settings.approvals, in: engine)
        for unoffered in try host.loadPlugins(into: engine, configuration: configuration) { logger.warning("\(unoffered.description)") }
        let status = StdioServer(connection: engine).run()
        engine.destroyPlugins()
        throw ExitCode(status)
    }
}
