import CFlowHostABI
import FlowHostVocabulary
import FlowJSON
import JSONRPC
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The host: turns frames into calls on flows and flows' output into frames.
///
/// A façade over parts that each own their state (ARCHITECTURE.md): what is
/// left here, across `HostEngine+*.swift`, is the routing between them:
/// which part a frame, a host-table call, a deadline or a feed event goes
/// to. The parts hold no engine: each is given the parts it works with (the
/// session the router and the dialogues, the router the name table and the
/// scheduler). Only a flow's `PluginContext` holds the engine: the host
/// table is the flows' door into this façade.
///
/// Every piece of mutable state here belongs to the event-loop thread, the
/// thread that created the engine: the loop feeds it input and timer ticks,
/// and plugins call back into it (through the host table) only from inside
/// those calls. The host table refuses calls from any other thread.
public final class HostEngine: ClientConnection {
    public static var supportedProtocolVersions: [String] { ClientHello.supportedProtocolVersions }

    enum Lifecycle { case awaitingInitialize, running, shutDown }

    public let options: Options
    public let logger: Logger
    /// Replies now; events and host requests after the reply being prepared.
    let output: FrameOutput
    let loopThread: pthread_t
    let hostTable: UnsafeMutablePointer<flowhost_host_v1>

    /// The installed flows, in the order installed.
    public var plugins: [LoadedPlugin] { names.flows }
    public internal(set) var refusals: [PluginRefusal] = []
    /// Which method and service names lead where, and the installed flows.
    let names = NameTable()
    var lifecycle = Lifecycle.awaitingInitialize
    /// What calls without params get, and what `ping` answers.
    var emptyObject = JSON.object()
    /// Every deadline and the flows' timers, on the injected clock.
    let scheduler: Scheduler
    /// Service calls in flight, the host's requests to the client made for them, and the open challenge.
    lazy var router = ServiceRouter(names: names, scheduler: scheduler, output: output, options: options, logger: logger)
    /// What is in progress, as dialogues.
    lazy var dialogues = Dialogues(
        router: router, scheduler: scheduler, names: names, challengeTimeoutMilliseconds: options.challengeTimeoutMilliseconds, logger: logger)
    /// What the client said in `initialize`, and requests to its platform.
    public private(set) lazy var client = ConnectedClient(router: router)
    /// Who is logged in on this host, and the session's rules, acted on.
    public private(set) lazy var session = SessionRuntime(
        router: router, dialogues: dialogues, client: client, scheduler: scheduler, subscriptions: subscriptions, names: names, logger: logger)
    /// This host's change-feed subscriptions (see HostEngine+Feed).
    let subscriptions: FeedSubscriptions
    var discoverDocument: JSON?

    /// Set by `exit` or the end of input: 0 for a clean end.
    var requestedExit: Int32?
    /// Set when the host should stop: 0 for a clean end (a client whose
    /// output closed is gone: a clean end too).
    public var exitStatus: Int32? { requestedExit ?? (output.isClosed ? 0 : nil) }
    /// The client's process id from `initialize`, if it gave one.
    public internal(set) var clientProcessID: Int32?

    /// `--trace`: every incoming frame is recorded here (the outgoing ones
    /// by the `TracingSink` the engine writes to). Set before serving.
    public var frameTrace: FrameTrace? {
        didSet {
            frameTrace?.declaredSecretsSource = { [unowned self] in DeclaredSecrets(plugins.map(\.describedManifest)) }
        }
    }
    /// The published contract `rpc.discover` lays over the declarations, if
    /// one was found. Set before serving.
    public var publishedContract: PublishedContract?
    /// The language messages are sent in (`language.set`): English, which
    /// costs nothing, until a client sets another.
    let language = HostLanguage()
    /// Where message catalogs are (`<language>.po`): asked only when a
    /// language other than English is set. Set before serving.
    public var catalogFolders: () -> [String] {
        get { language.catalogFolders }
        set { language.catalogFolders = newValue }
    }

    public init(options: Options = Options(), sink: FrameSink, logger: Logger, clock: any HostClock = SystemClock()) {
        self.options = options
        self.scheduler = Scheduler(clock: clock)
        self.logger = logger
        self.output = FrameOutput(sink: sink, logger: logger)
        self.subscriptions = FeedSubscriptions(logger: logger)
        self.loopThread = pthread_self()
        self.hostTable = .allocate(capacity: 1)
        hostTable.initialize(to: HostFunctionTable.make())
        registerBuiltins()
    }

    deinit {
        cancelTimers()
        for plugin in plugins { plugin.destroy() }
        hostTable.deinitialize(count: 1)
        hostTable.deallocate()
    }

    var isOnLoopThread: Bool { pthread_equal(pthread_self(), loopThread) != 0 }

    // MARK: Input (ClientConnection)

    /// The client closed its end.
    public func inputEnded() {
        if requestedExit == nil { requestedExit = 0 }
    }

    /// Writes what is buffered to the client.
    public func flush() throws { try output.flush() }

    public func flushOutput() { output.flushOrClose() }

    public var maxFrameBytes: Int { options.maxFrameBytes }

    public var wakeDescriptor: Int32? { subscriptions.wakeDescriptor }

    /// One frame from the transport.
    public func handle(_ frame: LineFramer.Frame) {
        switch frame {
        case .oversized(let byteCount):
            logger.warning("dropped a frame of \(byteCount) bytes (limit \(options.maxFrameBytes))")
            write(.error(id: .null, error: language.localized(IncomingFrame.oversized(byteCount, limit: options.maxFrameBytes))))
        case .line(let bytes):
            handleLine(bytes)
        }
    }

    /// Handles one whole frame. Exposed for tests that bypass the framer.
    public func handleLine(_ bytes: UnsafeRawBufferPointer) {
        // After `exit`, the rest of the input is not read.
        if exitStatus != nil { return }
        frameTrace?.record(incoming: bytes)
        switch IncomingFrame(bytes, maxNestingDepth: options.maxNestingDepth) {
        case .refused(let error):
            write(.error(id: .null, error: language.localized(error)))
        case .message(let value):
            output.holding {
                if let reply = handleMessage(value) { write(reply) }
                runDeferred()
            }
        case .batch(let values):
            output.holding {
                let replies = values.compactMap { handleMessage($0) }
                if !replies.isEmpty { output.writeBatch(replies) }
                runDeferred()
            }
        }
    }

    /// Runs deferred callbacks (and what they defer in turn) in order; then
    /// a session a failed step must end ends, after what that step set off.
    func runDeferred() {
        repeat {
            while !router.deferred.isEmpty {
                let next = router.deferred.removeFirst()
                next()
            }
            session.endIfStepReported()
        } while !router.deferred.isEmpty
    }

    private func handleMessage(_ value: JSON) -> Reply? {
        switch IncomingMessage.classify(value) {
        case .invalid(let id, let error):
            return .error(id: id, error: language.localized(error))
        case .response(let id, let result, let error):
            router.routeClientResponse(id: id, result: result, error: error, session: session)
            return nil
        case .notification(let method, let params):
            if case .failure(let error) = dispatch(method: method, params: params) {
                logger.debug("notification \(method) failed: \(error)")
            }
            return nil
        case .request(let id, let method, let params):
            switch dispatch(method: method, params: params) {
            case .success(let result): return .result(id: id, result: result)
            case .failure(let error): return .error(id: id, error: language.localized(error))
            }
        }
    }

    // MARK: Output

    func write(_ reply: Reply) { output.write(reply) }

    /// Sends an event or host request now, or after the reply being prepared.
    func send(_ outgoing: FrameOutput.Outgoing) { output.send(outgoing) }
}
