import FlowJSON

/// A flow written in Swift: a type with handlers, no unsafe code.
///
/// The SDK turns it into a C descriptor (`FlowExport`); the host never sees a
/// Swift type. All calls come on the host's loop thread.
public protocol Flow: AnyObject {
    static var declaration: FlowDeclaration { get }

    /// `config` is the flow's section of the host config (an object).
    init(host: FlowHost, config: JSON) throws(FlowError)

    /// After the client's `initialize`; may emit events.
    func start()

    /// A declared method; `params` is an object the host already type-checked.
    func handle(method: String, params: JSON) throws(FlowError) -> JSON?

    /// A declared service, called by another flow.
    func callService(_ name: String, params: JSON) throws(FlowError) -> JSON?

    /// The host is stopping (the client left, or `exit`): end what must not
    /// outlive this process, such as a logged-in session. The host table
    /// still works here, on the loop thread.
    func finish()
}

extension Flow {
    public func start() {}
    public func finish() {}
    public func callService(_ name: String, params: JSON) throws(FlowError) -> JSON? {
        throw FlowError(code: -32601, message: "service \(name) not offered")
    }
}
