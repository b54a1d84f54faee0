import FlowJSON
import JSONRPC

/// A service call in flight: who asked, who serves it, and under which
/// other call the caller was working (the chain that cancellation follows).
/// Owned by the engine's `calls` table, on the loop thread only.
final class ServiceCall {
    let id: UInt64
    let service: String
    /// The plugin that asked; nil when the host itself called.
    unowned(unsafe) let caller: LoadedPlugin?
    /// The plugin that serves it; nil for a host service.
    unowned(unsafe) let provider: LoadedPlugin?
    /// The call the caller was serving when it asked, if any.
    let parent: UInt64?
    /// A call made through the synchronous `call_service`: its result is
    /// needed before that call returns, so it is not deferred.
    let synchronous: Bool
    let onResult: (Result<JSON?, RPCError>) -> Void

    init(
        id: UInt64, service: String, caller: LoadedPlugin?, provider: LoadedPlugin?, parent: UInt64?, synchronous: Bool,
        onResult: @escaping (Result<JSON?, RPCError>) -> Void
    ) {
        self.id = id
        self.service = service
        self.caller = caller
        self.provider = provider
        self.parent = parent
        self.synchronous = synchronous
        self.onResult = onResult
    }
}

/// A one-shot timer a flow set.
struct PendingTimer {
    unowned(unsafe) let owner: LoadedPlugin
    let call: UInt64?
    let deadline: UInt64
    let fire: () -> Void
}

/// What a deadline in the engine's one `DeadlineQueue` is for.
enum Deadline {
    case request(String)
    case timer(UInt64)
    /// The open challenge with this serial expires.
    case challenge(Int)
    /// The host's session: its idle warning, its idle end, its lifetime.
    case sessionWarning, sessionIdle, sessionLifetime
    /// The change feed's safety-net poll.
    case feedPoll
}
