import FlowHostVocabulary
import FlowJSON
import JSONRPC
import Logging

/// Service calls between flows and the host: who called, who serves, what
/// each call started (challenges, host requests, timers, calls of its own,
/// tagged with the call that was `active`), and the one callback each
/// caller hears. Finishing or cancelling a call ends all it started.
///
/// The engine owns the router and routes the host table's service and
/// request functions here. It keeps the open challenge too, since a call's
/// end closes the challenge it started (as its host requests are withdrawn
/// and its timers stop, on the `scheduler`). Loop thread only, like the engine.
final class ServiceRouter {
    /// The service calls in flight, and the one plugin code runs for now.
    var calls = CallTable()
    /// The host's requests to the client that wait for an answer.
    var clientRequests = ClientRequestTable()
    /// The open challenge, and what started the dialogue in progress (see `Dialogues`).
    var challenge = ChallengeSlot()
    /// Callbacks that must not run inside the call that caused them (an
    /// asynchronous caller's result, a session notice); the engine runs them
    /// before the loop waits again.
    var deferred: [() -> Void] = []
    let names: NameTable, scheduler: Scheduler, output: FrameOutput, options: HostEngine.Options, logger: Logger

    init(names: NameTable, scheduler: Scheduler, output: FrameOutput, options: HostEngine.Options, logger: Logger) {
        (self.names, self.scheduler, self.output, self.options, self.logger) = (names, scheduler, output, options, logger)
    }

    /// Runs `body` with `call` as the active service call.
    func withCall<T>(_ call: UInt64?, _ body: () -> T) -> T {
        let saved = calls.active
        calls.active = call
        defer { calls.active = saved }
        return body()
    }

    /// A synchronous service call (`call_service`): the result before it returns.
    func callService(_ name: String, params: JSON, from caller: LoadedPlugin?) -> Result<JSON?, FlowHostError> {
        let (provider, bound): (ServiceProvider, JSON)
        do { (provider, bound) = try names.checkedService(name, params: params, from: caller).get() } catch { return .failure(error) }
        switch provider {
        case .host(_, let body):
            do { return .success(try body(caller?.name ?? "host", bound)) } catch { return .failure(error) }
        case .hostAsync(_, let body):
            // Answered synchronously only if it finishes at once (no client round trip).
            guard let caller else { return .failure(.internalError) }
            var outcome: Result<JSON?, FlowHostError>?
            let id = startCall(name, caller: caller, provider: nil, synchronous: true) { outcome = $0 }
            withCall(id) { body(caller, bound) { [self] result in _ = completeCall(id, result) } }
            if let outcome { return outcome }
            if let call = calls[id] { cancel(call, notifyCaller: false) }
            return .failure(
                FlowHostError(.internalError, message: "service \(name) answers later; call it with call_service_async", data: ["service": .string(name)]))
        case .flow(let plugin, _) where !plugin.servesAsynchronously:
            return plugin.callService(name, params: bound)
        case .flow(let plugin, _):
            // A provider that serves asynchronously answers a synchronous
            // call only if it finishes at once.
            var outcome: Result<JSON?, FlowHostError>?
            let id = startCall(name, caller: caller, provider: plugin, synchronous: true) { outcome = $0 }
            withCall(id) { plugin.serve(name, params: bound, callID: id) }
            if let outcome { return outcome }
            if let call = calls[id] { cancel(call, notifyCaller: false) }
            return .failure(
                FlowHostError(.internalError, message: "service \(name) answers later; call it with call_service_async", data: ["service": .string(name)]))
        }
    }

    /// Records a call in flight and returns its id.
    func startCall(
        _ service: String, caller: LoadedPlugin?, provider: LoadedPlugin?, synchronous: Bool,
        onResult: @escaping (Result<JSON?, FlowHostError>) -> Void
    ) -> UInt64 {
        calls.start(service, caller: caller, provider: provider, synchronous: synchronous, onResult: onResult)
    }

    /// `call_service_async`: returns the call's id at once; `onResult` runs
    /// once, later (never inside this call), on the loop thread.
    func callServiceAsync(
        _ name: String, params: JSON, from caller: LoadedPlugin, onResult: @escaping (Result<JSON?, FlowHostError>) -> Void
    ) -> Result<UInt64, FlowHostError> {
        guard calls.count < options.maxServiceCallsInFlight else {
            return .failure(FlowHostError(.requestTimedOut, message: "too many service calls in flight", data: ["service": .string(name)]))
        }
        let (provider, bound): (ServiceProvider, JSON)
        do { (provider, bound) = try names.checkedService(name, params: params, from: caller).get() } catch { return .failure(error) }
        switch provider {
        case .host(_, let body):
            let id = startCall(name, caller: caller, provider: nil, synchronous: false, onResult: onResult)
            let outcome: Result<JSON?, FlowHostError>
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
    func completeCall(_ id: UInt64, _ outcome: Result<JSON?, FlowHostError>, by provider: LoadedPlugin? = nil) -> Bool {
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
                call.onResult(.failure(FlowHostError.requestCancelled.withData(["service": .string(call.service)])))
            }
        }
    }

    /// What belonged to a call that ended: its challenge closes, its host
    /// requests are cancelled (the client is told), its timers stop.
    func endDialogue(of callID: UInt64) {
        challenge.close(belongingTo: callID)
        withdraw(clientRequests.remove(where: { $0.call == callID }), FlowHostError.requestCancelled)
        for timer in scheduler.removeTimers(where: { $0.call == callID }) { withCall(callID) { timer.fire(false) } }
    }

    /// The newest asynchronous call `plugin` serves, if any: the one its
    /// dialogue belongs to (one dialogue at a time), for work it starts
    /// outside any call's context, such as on a change-feed event.
    func servedCall(by plugin: LoadedPlugin) -> UInt64? {
        calls.newestServed(by: plugin)
    }
}
