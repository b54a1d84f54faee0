import FlowHostCore
import FlowHostVocabulary
import FlowHostStore
import FlowJSON

/// Offers one host service. Its params are declared (the host checks them
/// before `body` runs); `body` may throw anything: an unknown user is -32010,
/// an unreachable store is -32015 (the client may try again), any other failure is logged and reaches the flow as a generic internal
/// error, never with the store's own message.
func offer(
    _ engine: HostEngine, _ name: String, _ params: [ParamSpec], _ body: @escaping (_ caller: String, ServiceParams) throws -> JSON?
) {
    let logger = engine.logger
    engine.registerService(name, params: params) { caller, json throws(FlowHostError) in
        do {
            return try body(caller, ServiceParams(json: json, declared: params))
        } catch let error as FlowHostError {
            throw error
        } catch let error as StoreError where error == .notFound {
            throw FlowHostError.unknownUser
        } catch let error as StoreError where error == .unreachable {
            logger.error("service \(name): the store is unreachable")
            throw FlowHostError.storeUnreachable
        } catch {
            logger.error("service \(name) failed: \(error)")
            throw FlowHostError.internalError
        }
    }
}

/// Registers an asynchronous host service (one that may ask the client's
/// platform first): params are read through `ServiceParams`, and a refusal
/// thrown before the service goes asynchronous finishes the call with it.
func offerAsync(
    _ engine: HostEngine, _ name: String, _ params: [ParamSpec],
    _ body: @escaping (_ caller: LoadedPlugin, ServiceParams, _ finish: @escaping (Result<JSON?, FlowHostError>) -> Void) throws(FlowHostError) -> Void
) {
    engine.registerAsyncService(name, params: params) { caller, json, finish in
        do throws(FlowHostError) { try body(caller, ServiceParams(json: json, declared: params), finish) } catch { finish(.failure(error)) }
    }
}

/// A service typed by its generated request and outcome (`Services.…`):
/// `body` gets the request and returns the outcome. Its params are the
/// contract's (`Request.paramSpecs`, generated from Protocol/services.json
/// into DeclaredServices.swift): the host checks every call against them.
func offer<Request: DeclaredService>(
    _ engine: HostEngine, _ type: Request.Type, _ body: @escaping (_ caller: String, Request) throws -> Request.Outcome
) {
    offer(engine, Request.service, Request.paramSpecs) { caller, p in try body(caller, try p.request(Request.self)).result }
}

/// An asynchronous service typed by its generated request and outcome.
func offerAsync<Request: DeclaredService>(
    _ engine: HostEngine, _ type: Request.Type,
    _ body: @escaping (_ caller: LoadedPlugin, Request, _ finish: @escaping (Result<Request.Outcome, FlowHostError>) -> Void) throws(FlowHostError) -> Void
) {
    offerAsync(engine, Request.service, Request.paramSpecs) { caller, p, finish throws(FlowHostError) in
        try body(caller, try p.request(Request.self)) { outcome in finish(outcome.map(\.result)) }
    }
}

/// A service whose params hold arrays or objects of their own (a
/// notification's actions, records' operations): read through
/// `ServiceParams`, which names a bad member by its path
/// (`actions[1].authlevel`); the outcome is typed as for the others.
func offerReading<Request: DeclaredService>(
    _ engine: HostEngine, _ type: Request.Type, _ body: @escaping (_ caller: String, ServiceParams) throws -> Request.Outcome
) {
    offer(engine, Request.service, Request.paramSpecs) { caller, p in try body(caller, p).result }
}
