import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// A request the host sent to the client and still waits on.
struct PendingClientRequest {
    let id: String
    /// Its place in sending order (ids compare as text, "fh-10" before "fh-9").
    let number: Int
    let method: String
    let owner: LoadedPlugin
    /// The service call the flow was serving when it asked, if any.
    let call: UInt64?
    let deadline: UInt64
    let completion: (Result<JSON, FlowHostError>) -> Void
}

/// The host's requests to the client (`platform/…`) that wait for an answer,
/// with their ids. Knows nothing of frames or deadlines' meaning.
///
/// Owned by the engine; touched on the loop thread only.
struct ClientRequestTable {
    private var pending: [String: PendingClientRequest] = [:]
    private var nextNumber = 1

    var count: Int { pending.count }

    /// The id the next request gets.
    var nextID: String { "fh-\(nextNumber)" }

    /// Records a request under `nextID`.
    mutating func add(method: String, owner: LoadedPlugin, call: UInt64?, deadline: UInt64, completion: @escaping (Result<JSON, FlowHostError>) -> Void) {
        let id = nextID
        pending[id] = PendingClientRequest(
            id: id, number: nextNumber, method: method, owner: owner, call: call, deadline: deadline, completion: completion)
        nextNumber += 1
    }

    /// Takes out the request with `id`; nil when it is not waiting.
    mutating func remove(_ id: String) -> PendingClientRequest? { pending.removeValue(forKey: id) }

    /// Takes out every request that `matches`, in sending order.
    mutating func remove(where matches: (PendingClientRequest) -> Bool) -> [PendingClientRequest] {
        let taken = pending.values.filter(matches).sorted { $0.number < $1.number }
        for request in taken { pending[request.id] = nil }
        return taken
    }

    func isLive(_ id: String, deadline: UInt64) -> Bool { pending[id]?.deadline == deadline }

    /// The request sent first among those still waiting.
    var oldest: PendingClientRequest? { pending.values.min { $0.number < $1.number } }
}
