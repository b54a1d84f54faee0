import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// The service calls in flight, and the one on whose behalf plugin code
/// runs now (`active`): what that code starts (challenges, host requests,
/// timers, calls of its own) belongs to it. Calls form chains through
/// `parent`; cancellation follows them. Knows nothing of what a call does.
///
/// Owned by the engine; touched on the loop thread only.
struct CallTable {
    private var calls: [UInt64: ServiceCall] = [:]
    private var nextID: UInt64 = 1
    /// The call plugin code is working for now (nil: the client's request, or nothing).
    var active: UInt64?

    var count: Int { calls.count }
    var isEmpty: Bool { calls.isEmpty }

    subscript(id: UInt64) -> ServiceCall? { calls[id] }

    /// Records a new call, made under the active one, and returns its id.
    mutating func start(
        _ service: String, caller: LoadedPlugin?, provider: LoadedPlugin?, synchronous: Bool,
        onResult: @escaping (Result<JSON?, FlowHostError>) -> Void
    ) -> UInt64 {
        let id = nextID
        nextID += 1
        calls[id] = ServiceCall(
            id: id, service: service, caller: caller, provider: provider, parent: active, synchronous: synchronous, onResult: onResult)
        return id
    }

    /// Takes a call out; nil when it is not pending (finished or cancelled).
    mutating func remove(_ id: UInt64) -> ServiceCall? { calls.removeValue(forKey: id) }

    /// The calls made while serving `id`, oldest first.
    func children(of id: UInt64) -> [ServiceCall] { sorted { $0.parent == id } }

    /// The calls nobody's call made (a flow's own, from a client request or an event), oldest first.
    var roots: [ServiceCall] { sorted { $0.parent == nil } }

    /// The calls `plugin` made, oldest first.
    func made(by plugin: LoadedPlugin) -> [ServiceCall] { sorted { $0.caller === plugin } }

    var oldest: ServiceCall? { calls.values.min { $0.id < $1.id } }

    /// The flow that made the first call of `id`'s chain (nil: no call, or the host's).
    func rootCaller(of id: UInt64?) -> LoadedPlugin? {
        root(of: id).flatMap { calls[$0]?.caller }
    }

    /// The first call of `id`'s chain (nil: no call).
    func root(of id: UInt64?) -> UInt64? {
        var root: UInt64?
        var next = id
        while let current = next, let call = calls[current] {
            root = current
            next = call.parent
        }
        return root
    }

    /// The newest asynchronous call `plugin` serves: the one its dialogue belongs to.
    func newestServed(by plugin: LoadedPlugin) -> UInt64? {
        calls.values.filter { $0.provider === plugin && !$0.synchronous }.map(\.id).max()
    }

    private func sorted(where matches: (ServiceCall) -> Bool) -> [ServiceCall] {
        calls.values.filter(matches).sorted { $0.id < $1.id }
    }
}
