import FlowJSON

/// Typed service calls: `try host.call(Services.PasswordStepUp(…))` answers
/// the service's own outcome type, so a flow switches over a closed enum
/// instead of reading `result["outcome"]` by string.
extension FlowHost {
    /// A synchronous typed call (see `call(_:_:)`).
    public func call<Request: ServiceRequest>(_ request: Request) throws(FlowHostError) -> Request.Outcome {
        try Self.outcome(of: request, from: call(Request.service, request.params))
    }

    /// An asynchronous typed call (see `call(_:_:completion:)`).
    @discardableResult
    public func call<Request: ServiceRequest>(
        _ request: Request, completion: @escaping (Result<Request.Outcome, FlowHostError>) -> Void
    ) -> UInt64? {
        call(Request.service, request.params) { result in
            completion(result.flatMap { answer in
                do throws(FlowHostError) { return .success(try Self.outcome(of: request, from: answer)) } catch { return .failure(error) }
            })
        }
    }

    /// The answer read as the service's outcome; an answer its schema does
    /// not allow is the serving side's bug, reported as -32603.
    static func outcome<Request: ServiceRequest>(of request: Request, from answer: JSON) throws(FlowHostError) -> Request.Outcome {
        do { return try Request.Outcome(result: answer) } catch {
            throw FlowHostError(.internalError, message: "\(Request.service) answered outside its schema: \(error)")
        }
    }
}

extension Dialogue {
    /// An asynchronous typed call of this dialogue: dropped once it ended.
    @discardableResult
    public func call<Request: ServiceRequest>(
        _ request: Request, completion: @escaping (Result<Request.Outcome, FlowHostError>) -> Void
    ) -> UInt64? {
        host.call(request, completion: guarded(completion))
    }
}
