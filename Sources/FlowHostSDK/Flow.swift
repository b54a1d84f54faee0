import FlowJSON

/// A flow written in Swift: a type with handlers, no unsafe code.
///
/// The SDK turns it into a C descriptor (`FlowExport`); the host never sees a
/// Swift type. All calls come on the host's loop thread.
public protocol Flow: AnyObject {
    /// Read once, when the library's descriptor is made, and turned into
    /// the manifest text the descriptor keeps: a computed property (`static
    /// var declaration: FlowDeclaration { … }`) leaves nothing else behind,
    /// where a `static let` keeps the declaration for the process's life.
    static var declaration: FlowDeclaration { get }

    /// `config` is the flow's section of the host config (an object).
    init(host: FlowHost, config: JSON) throws(FlowHostError)

    /// After the client's `initialize`; may emit events.
    func start()

    /// A declared method; `params` is an object the host already type-checked.
    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON?

    /// A declared service, called by another flow.
    func callService(_ name: String, params: JSON) throws(FlowHostError) -> JSON?

    /// A call this flow serves was cancelled by its caller: stop its
    /// dialogue (its challenge, host requests and timers are gone already).
    func cancelled(_ call: UInt64)

    /// Something the host tells the flow: "session" (`{event: opened | ended,
    /// userID, sessionID, reason?}`), "challenge.expired" (`{event,
    /// challengeMode}`), or a change-feed topic it subscribed to.
    func notified(topic: String, payload: JSON)

    /// The host is stopping (the client left, or `exit`): end what must not
    /// outlive this process, such as a logged-in session. The host table
    /// still works here, on the loop thread.
    func finish()
}

extension Flow {
    public func start() {}
    public func cancelled(_ call: UInt64) {}
    public func notified(topic: String, payload: JSON) {}
    public func finish() {}
    public func callService(_ name: String, params: JSON) throws(FlowHostError) -> JSON? {
        throw FlowHostError(.methodNotFound, message: "service \(name) not offered")
    }
}

/// A flow whose services may finish later, after a dialogue of their own
/// with the client (step-up asks for a password, then answers its caller).
public protocol ServingFlow: Flow {
    /// Finish with `host.complete(call, …)` exactly once, now or later.
    func serve(_ name: String, params: JSON, call: UInt64)
}
