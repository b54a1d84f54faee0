import FlowJSON

/// An event (a JSON-RPC notification) the host sent the client.
public struct TestEvent: CustomStringConvertible {
    public let name: String
    public let params: JSON

    public var description: String { "\(name) \(params.serialized())" }
}

/// A request the host sent the client (`platform/authenticateLDA`, …) that
/// no `answer` handler took: the test replies with `reply(to:…)`.
public struct TestHostRequest: CustomStringConvertible {
    public let method: String
    public let params: JSON
    let id: JSON

    public var description: String { "\(method) \(params.serialized())" }
}
