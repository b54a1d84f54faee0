import CFlowHostSystem
import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostServices
import JSONRPC

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The protocol server: builds the engine, the store's services and the
/// flows from `ServeArguments`, and serves until the client leaves.
public enum ServeLauncher {
    /// What `run` got to before it stopped with an error: `flowhost` hands
    /// an unserved command line to `flowhost-cli`, with stdout given back.
    public struct Failure: Error {
        public let error: any Error
        /// The real stdout, when the guard had moved it (-1 if not).
        public let framesDescriptor: Int32
    }

    /// Serves; returns the exit status. Throws `Failure` for anything that
    /// stopped the host before it served a frame.
    public static func run(_ arguments: ServeArguments) throws(Failure) -> Int32 {
        // Before any JSON exists: every block jansson frees is wiped first.
        flowhost_json_wipe_on_free()
        signal(SIGPIPE, SIG_IGN)
        let frameFD: Int32
        do { frameFD = try StdoutGuard.engage() } catch { throw Failure(error: error, framesDescriptor: -1) }
        let engine: HostEngine
        let events: AuditEventDelivery?
        let pushes: PushDelivery?
        do {
            let host = arguments.host
            var storage = arguments.storage
            let logger = try host.makeLogger()
            if let group = arguments.peerGroup {
                try PeerAdmission.check(group: group, connection: STDIN_FILENO, logger: logger)
            }
            var configuration = try host.loadConfiguration()
            if let maxFrameBytes = arguments.maxFrameBytes {
                guard maxFrameBytes > 0 else { throw LaunchError.usage("--max-frame-bytes must be positive") }
                configuration.options.maxFrameBytes = maxFrameBytes
            }
            let trace = try host.frameTrace()
            let frames: FrameSink = trace.map { TracingSink(inner: FileDescriptorSink(fd: frameFD), trace: $0) } ?? FileDescriptorSink(fd: frameFD)
            engine = HostEngine(options: configuration.options, sink: frames, logger: logger)
            engine.frameTrace = trace
            engine.publishedContract = try host.publishedContract()
            engine.catalogFolders = HostLaunchOptions.catalogFolders
            if storage.feedURL == nil { storage.feedStore = configuration.feedStore }
            let settings = try HostSettings(validating: configuration)
            let (domains, feedWake) = try storage.domainsRinging(settings, logger: logger, deliver: true)
            events = domains.context.audit.events.sink as? AuditEventDelivery
            pushes = (domains.push as? NotificationPushes)?.delivery
            HostModules.register(
                domains, feedWake: feedWake, keyring: try storage.keyring(), issuer: try storage.issuer(store: domains.context.store),
                retention: settings.retention, approvals: settings.approvals, webauthn: settings.webauthn, in: engine)
            for unoffered in try host.loadPlugins(into: engine, configuration: configuration) { logger.warning("\(unoffered.description)") }
        } catch {
            throw Failure(error: error, framesDescriptor: frameFD)
        }
        let status = StdioServer(connection: engine).run()
        engine.destroyPlugins()
        // A socket-activated host exits when its client leaves: the events it woke run first.
        events?.drain()
        pushes?.drain()
        return status
    }
}
