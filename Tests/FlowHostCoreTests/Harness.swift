import CFlowHostABI
import FlowHostCore
import FlowHostSDK
import FlowJSON
import JSONRPC
import Logging

/// An engine with in-process flows and an in-memory client end.
final class Harness {
    let sink = MemorySink()
    let engine: HostEngine
    /// The transport's side: bytes cut into frames for the engine.
    lazy var input = FramedInput(connection: engine)

    init(
        _ flows: any Flow.Type..., configure: (String) -> JSON = { _ in .object() }, options: HostEngine.Options = .init(),
        clock: any HostClock = SystemClock()
    ) {
        func descriptor<F: Flow>(_ type: F.Type) -> UnsafeRawPointer { FlowExport.descriptor(for: type) }
        engine = HostEngine(
            options: options, sink: sink, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), clock: clock)
        var candidates: [LoadedPlugin] = []
        for descriptor in flows.map({ descriptor($0) }) {
            switch PluginLoader.validate(descriptor: descriptor.assumingMemoryBound(to: flowhost_plugin_descriptor_v1.self), path: "<memory>") {
            case .success(let plugin): candidates.append(plugin)
            case .failure(let refusal): engine.refuse(refusal)
            }
        }
        engine.install(candidates, config: configure)
    }

    /// Sends raw lines (each gets a \n) and returns the lines the host wrote.
    @discardableResult
    func send(_ lines: String...) -> [String] {
        sink.reset()
        for line in lines { receive(Array((line + "\n").utf8)) }
        try! engine.flush()
        return sink.lines
    }

    /// Sends lines and parses each reply frame.
    func exchange(_ lines: String...) -> [JSON] {
        sink.reset()
        for line in lines { receive(Array((line + "\n").utf8)) }
        try! engine.flush()
        return sink.lines.map { try! JSON.parse($0) }
    }

    func receive(_ bytes: [UInt8]) { bytes.withUnsafeBytes { input.push($0) } }

    static let initializeLine =
        #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1.1","clientInfo":{"name":"tests","version":"1"},"device":{"deviceID":"dev-1","ldaCapabilities":[1]}}}"#

    @discardableResult
    func initialize() -> [JSON] { exchange(Self.initializeLine) }
}

func request(_ id: Int, _ method: String, _ params: String? = nil) -> String {
    if let params { return #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"# }
    return #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)"}"#
}
