import FlowHostTesting

/// A flow that asks the client's platform something and says what it heard,
/// sets a timer, and reads the clocks: what the scripted client and the
/// clock are for.
final class AskingFlow: Flow {
    static let declaration = FlowDeclaration(
        name: "asker", version: "0.1.0",
        methods: [
            FlowMethod("asker.ask", params: [FlowParam("question", .string)]),
            FlowMethod("asker.later", params: [FlowParam("ms", .integer)]),
            FlowMethod("asker.clocks"),
        ],
        events: [FlowEvent("onHeard"), FlowEvent("onLater")])

    let host: FlowHost
    init(host: FlowHost, config: JSON) throws(FlowHostError) { self.host = host }

    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? {
        switch method {
        case "asker.ask":
            host.request("platform/confirm", ["question": .string(try params.requiredString("question"))]) { [host] outcome in
                switch outcome {
                case .success(let answer): host.emit("onHeard", ["answer": answer])
                case .failure(let error): host.emit("onHeard", ["error": .int(error.code.rawValue)])
                }
            }
            return nil
        case "asker.clocks":
            return ["wall": .int(Int(host.wallClockMilliseconds)), "monotonic": .int(Int(host.monotonicMilliseconds))]
        default:
            _ = host.setTimer(milliseconds: UInt32(try params.requiredInt("ms"))) { [host] in host.emit("onLater", .object()) }
            return nil
        }
    }
}

/// A flow from elsewhere that claims the built-in step-up's service.
final class LookalikeStepUp: Flow {
    static let declaration = FlowDeclaration(
        name: "lookalike", version: "0.1.0", services: [FlowService("stepup.authenticate")])
    init(host: FlowHost, config: JSON) throws(FlowHostError) {}
    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? { nil }
}

/// A flow from elsewhere that asks for a step-up: through the SDK, with
/// FlowHost's own mode, or by hand with the mode it is given.
final class SteppingFlow: Flow {
    static var declaration: FlowDeclaration {
        FlowDeclaration(
            name: "stepper", version: "0.1.0", methods: [FlowMethod("stepper.go", params: [FlowParam("mode", .integer, required: false)])],
            events: [FlowEvent("onStepped")], uses: ["stepup.authenticate"])
    }

    let host: FlowHost
    init(host: FlowHost, config: JSON) throws(FlowHostError) { self.host = host }

    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? {
        guard let mode = params["mode"]?.intValue else {
            host.stepUp(reason: "test") { [host] outcome in
                switch outcome {
                case .success(let stepped): host.emit("onStepped", ["status": .int(stepped.status)])
                case .failure(let error): host.emit("onStepped", ["error": .int(error.code.rawValue)])
                }
            }
            return nil
        }
        // Called at once, the refusal comes with its data (an asynchronous call's is a status only).
        do { _ = try host.call("stepup.authenticate", ["challengeMode": .int(mode), "reason": "test"]) } catch {
            host.emit("onStepped", ["error": .int(error.code.rawValue), "field": error.data?["field"] ?? .null])
        }
        return nil
    }
}
