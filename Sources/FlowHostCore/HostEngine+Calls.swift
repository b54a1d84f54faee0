import FlowJSON
import JSONRPC

/// Asynchronous service calls: a flow asks, a provider serves (perhaps
/// through a dialogue of its own with the client), the caller hears once.
///
/// What a provider starts while serving a call (challenges, host requests,
/// timers, calls of its own) is tagged with that call (`activeCall`), so
/// that finishing or cancelling the call ends all of it.
extension HostEngine {
    /// Records a call in flight and returns its id.
    func startCall(
        _ service: String, caller: LoadedPlugin?, provider: LoadedPlugin?, synchronous: Bool,
        onResult: @escaping (Result<JSON?, RPCError>) -> Void
    ) -> UInt64 {
        calls.start(service, caller: caller, provider: provider, synchronous: synchronous, onResult: onResult)
    }

    /// `call_service_async`: returns the call's id at once; `onResult` runs
    /// once, later (never inside this call), on the loop thread.
    func callServiceAsync(
        _ name: String, params: JSON, from caller: LoadedPlugin, onResult: @escaping (Result<JSON?, RPCError>) -> Void
    ) -> Result<UInt64, RPCError> {
        guard calls.count < options.maxServiceCallsInFlight else {
            return .failure(RPCError(.requestTimedOut, message: "too many service calls in flight", data: ["service": .string(name)]))
        }
        let provider: ServiceProvider
        let bound: JSON
        switch names.checkedService(name, params: params, from: caller) {
        case .failure(let error): return .failure(error)
        case .success(let found): (provider, bound) = found
        }
        switch provider {
        case .host(_, let body):
            let id = startCall(name, caller: caller, provider: nil, synchronous: false, onResult: onResult)
            let outcome: Result<JSON?, RPCError>
            do { outcome = .success(try body(caller.name, bound)) } catch { outcome = .failure(error) }
            _ = completeCall(id, outcome)
            return .success(id)
        case .hostAsync(_, let body):
            let id = startCall(name, caller: caller, provider: nil, synchronous: false, onResult: onResult)
            withCall(id) { body(caller, bound) { [self] result in _ = completeCall(id, result) } }
            return .success(id)
        case .flow(let plugin, _):
            let id = startCall(name, caller: caller, provider: plugin, synchronous: false, onResult: onResult)
            if plugin.servesAsynchronously {
                withCall(id) { plugin.serve(name, params: bound, callID: id) }
            } else {
                let outcome = withCall(id) { plugin.callService(name, params: bound) }
                _ = completeCall(id, outcome)
            }
            return .success(id)
        }
    }

    /// A provider finished `id` (`complete_call`). False when the call is not
    /// pending (cancelled, or finished already): the completion is dropped.
    func completeCall(_ id: UInt64, _ outcome: Result<JSON?, RPCError>, by provider: LoadedPlugin? = nil) -> Bool {
        guard let call = calls[id] else {
            logger.debug("completion of call \(id) dropped: not pending")
            return false
        }
        if let provider, call.provider !== provider {
            logger.warning("flow \(provider.name) tried to complete call \(id), which it does not serve")
            return false
        }
        _ = calls.remove(id)
        endDialogue(of: id)
        if call.synchronous {
            call.onResult(outcome)
        } else {
            deferred.append { [self] in withCall(call.parent) { call.onResult(outcome) } }
        }
        return true
    }

    /// `cancel_calls`: every call `plugin` made that is still pending, and
    /// what each started, down the chain. Returns how many of its own.
    @discardableResult
    func cancelCalls(madeBy plugin: LoadedPlugin) -> Int {
        let own = calls.made(by: plugin)
        for call in own { cancel(call, notifyCaller: true) }
        return own.count
    }

    /// Cancels one call: first the calls made while serving it, then the
    /// provider hears `cancel_call`, its dialogue for the call ends, and the
    /// caller's callback runs once with -32800.
    func cancel(_ call: ServiceCall, notifyCaller: Bool) {
        guard calls.remove(call.id) != nil else { return }
        for child in calls.children(of: call.id) {
            cancel(child, notifyCaller: true)
        }
        endDialogue(of: call.id)
        withCall(call.id) { call.provider?.cancelCall(call.id) }
        if notifyCaller {
            withCall(call.parent) {
                call.onResult(.failure(RPCError.requestCancelled.withData(["service": .string(call.service)])))
            }
        }
    }

    /// What belonged to a call that ended: its challenge closes, its host
    /// requests are cancelled (the client is told), its timers stop.
    func endDialogue(of callID: UInt64) {
        challenge.close(belongingTo: callID)
        for pending in clientRequests.remove(where: { $0.call == callID }) {
            send(.event(name: "$/cancelRequest", params: ["id": .string(pending.id)]))
            withCall(callID) { pending.completion(.failure(RPCError.requestCancelled.withData(["method": .string(pending.method)]))) }
        }
        for timer in scheduler.removeTimers(where: { $0.call == callID }) { withCall(callID) { timer.fire(false) } }
    }

    /// The newest asynchronous call `plugin` serves, if any: the one its
    /// dialogue belongs to (one dialogue at a time), for work it starts
    /// outside any call's context, such as on a change-feed event.
    func servedCall(by plugin: LoadedPlugin) -> UInt64? {
        calls.newestServed(by: plugin)
    }
}
