import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// A service call in flight: who asked, who serves it, and under which
/// other call the caller was working (the chain that cancellation follows).
/// Owned by the engine's `calls` table, on the loop thread only. It holds
/// its flows strongly: a plugin is never unloaded, and nothing here leads
/// back to the engine, so no cycle forms.
final class ServiceCall {
    let id: UInt64
    let service: String
    /// The plugin that asked; nil when the host itself called.
    let caller: LoadedPlugin?
    /// The plugin that serves it; nil for a host service.
    let provider: LoadedPlugin?
    /// The call the caller was serving when it asked, if any.
    let parent: UInt64?
    /// A call made through the synchronous `call_service`: its result is
    /// needed before that call returns, so it is not deferred.
    let synchronous: Bool
    let onResult: (Result<JSON?, FlowHostError>) -> Void

    init(
        id: UInt64, service: String, caller: LoadedPlugin?, provider: LoadedPlugin?, parent: UInt64?, synchronous: Bool,
        onResult: @escaping (Result<JSON?, FlowHostError>) -> Void
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
