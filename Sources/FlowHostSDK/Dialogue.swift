import FlowJSON
import FlowHostServiceTypes

/// One dialogue of a flow with its client, as a handle: the service calls,
/// host requests and timers started through it belong to it, and what they
/// report after it ended is dropped. A flow keeps its current dialogue and
/// writes no guard of its own (no generation counters, no "is this still
/// the call I serve?").
///
/// A flow runs one dialogue at a time: `end(abandoning: true)` cancels every
/// call and host request the flow is waiting on, as they are this
/// dialogue's. Loop thread only, like the `FlowHost` it came from.
public final class Dialogue {
    unowned let host: FlowHost
    /// False once `end` ran: completions are dropped from then on.
    public private(set) var isOpen = true
    /// The service call this dialogue serves, if it serves one (a step-up).
    public let servedCall: UInt64?
    private var timers: Set<UInt64> = []

    init(host: FlowHost, serving call: UInt64?) {
        self.host = host
        self.servedCall = call
    }

    /// `body`, run only while this dialogue is open. It holds the dialogue
    /// until it runs: a dialogue no flow keeps still hears its answers.
    public func guarded<Value>(_ body: @escaping (Value) -> Void) -> (Value) -> Void {
        { value in
            guard self.isOpen else { return }
            body(value)
        }
    }

    /// `FlowHost.call(_:_:completion:)`, for this dialogue.
    @discardableResult
    public func call(_ service: String, _ params: JSON = .object(), completion: @escaping (Result<JSON, FlowHostError>) -> Void) -> UInt64? {
        host.call(service, params, completion: guarded(completion))
    }

    /// `FlowHost.request`, for this dialogue.
    public func request(
        _ method: String, _ params: JSON, timeoutMilliseconds: UInt32 = 0, completion: @escaping (Result<JSON, FlowHostError>) -> Void
    ) {
        host.request(method, params, timeoutMilliseconds: timeoutMilliseconds, completion: guarded(completion))
    }

    /// `FlowHost.authenticateWithLDA`, for this dialogue.
    public func authenticateWithLDA(
        userID: String, type: Int, reason: FlowHost.LDAReason, completion: @escaping (FlowHost.LDACheck) -> Void
    ) {
        host.authenticateWithLDA(userID: userID, type: type, reason: reason, completion: guarded(completion))
    }

    /// `FlowHost.verifyServerBiometric`, for this dialogue.
    public func verifyServerBiometric(userID: String, reason: String, completion: @escaping (FlowHost.ServerBiometricCheck) -> Void) {
        host.verifyServerBiometric(userID: userID, reason: reason, completion: guarded(completion))
    }

    /// `FlowHost.createDeviceKey`, for this dialogue.
    public func createDeviceKey(
        userID: String, deviceID: String, completion: @escaping (Result<Services.DeviceCreateKeyOutcome, FlowHostError>) -> Void
    ) {
        host.createDeviceKey(userID: userID, deviceID: deviceID, completion: guarded(completion))
    }

    /// `FlowHost.stepUp`, for this dialogue.
    @discardableResult
    public func stepUp(_ request: Services.StepupAuthenticate, completion: @escaping (Result<StepUpOutcome, FlowHostError>) -> Void) -> UInt64? {
        host.stepUp(request, completion: guarded(completion))
    }

    /// `FlowHost.stepUp(reason:method:)`, for this dialogue.
    @discardableResult
    public func stepUp(reason: String, method: String? = nil, completion: @escaping (Result<StepUpOutcome, FlowHostError>) -> Void) -> UInt64? {
        host.stepUp(reason: reason, method: method, completion: guarded(completion))
    }

    /// A one-shot timer of this dialogue: it stops when the dialogue ends.
    @discardableResult
    public func setTimer(milliseconds: UInt32, _ fire: @escaping () -> Void) -> UInt64? {
        var id: UInt64?
        id = host.setTimer(milliseconds: milliseconds) {
            guard self.isOpen else { return }
            if let id { self.timers.remove(id) }
            fire()
        }
        if let id { timers.insert(id) }
        return id
    }

    /// Stops one of this dialogue's timers (false: it fired or stopped already).
    @discardableResult
    public func cancelTimer(_ id: UInt64) -> Bool {
        guard timers.remove(id) != nil else { return false }
        return host.cancelTimer(id)
    }

    /// Ends the dialogue: its timers stop and what it started reports to no
    /// one. `abandoning`: the flow's calls and host requests are cancelled
    /// too (the callers and the client are told). Ending twice does nothing.
    public func end(abandoning: Bool = false) {
        guard isOpen else { return }
        isOpen = false
        for id in timers { host.cancelTimer(id) }
        timers.removeAll()
        if abandoning { host.abandonDialogue() }
    }
}

extension FlowHost {
    /// A new dialogue; `serving`: the service call it answers, if any.
    public func beginDialogue(serving call: UInt64? = nil) -> Dialogue { Dialogue(host: self, serving: call) }
}
