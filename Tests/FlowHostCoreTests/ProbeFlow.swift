import FlowHostSDK
import FlowJSON

/// A Swift flow built with the SDK, exercising every host function from
/// inside the process (the C ABI round trip, without dlopen).
final class ProbeFlow: Flow {
    static let declaration = FlowDeclaration(
        name: "probe", version: "1.2.3",
        methods: [
            FlowMethod("probe.emit", params: [FlowParam("text", .string)]),
            FlowMethod("probe.ask", params: [FlowParam("method", .string), FlowParam("timeoutMs", .integer, required: false)]),
            FlowMethod("probe.challenge", params: [FlowParam("challengeMode", .integer)]),
            FlowMethod("probe.fail", params: [FlowParam("code", .integer)]),
            FlowMethod("probe.call", params: [FlowParam("service", .string), FlowParam("params", .object, required: false)]),
            FlowMethod("probe.timer"),
            FlowMethod(
                "setSecret", params: [FlowParam("secret", .string), FlowParam("challengeMode", .integer, required: false)],
                answers: ["getSecret"]),
        ],
        events: [
            FlowEvent("onProbe"), FlowEvent("onAnswer"), FlowEvent("getSecret", challenge: true),
        ],
        services: [FlowService("probe.double", params: [FlowParam("n", .integer)])],
        uses: ["probe.double", "no.such", "host.answer"])

    let host: FlowHost
    var mode = 0

    init(host: FlowHost, config: JSON) throws(FlowHostError) {
        if config["refuse"]?.boolValue == true { throw FlowHostError(.internalError, message: "refused by config") }
        self.host = host
    }

    func start() { host.emit("onProbe", ["text": "started"]) }

    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? {
        switch method {
        case "probe.emit":
            host.emit("onProbe", ["text": params["text"]!])
            return ["emitted": true]
        case "probe.ask":
            let timeout = UInt32(params["timeoutMs"]?.intValue ?? 0)
            host.request(params["method"]!.stringValue!, ["question": 42], timeoutMilliseconds: timeout) { [host] outcome in
                switch outcome {
                case .success(let value): host.emit("onAnswer", ["result": value])
                case .failure(let error): host.emit("onAnswer", ["error": .int(error.code.rawValue)])
                }
            }
            return nil
        case "probe.challenge":
            mode = params["challengeMode"]!.intValue!
            host.emit("getSecret", ["challengeMode": .int(mode)])
            return nil
        case "setSecret":
            switch params["secret"]!.stringValue! {
            case "": throw FlowHostError.sdk(4, "empty secret")
            case "right":
                host.emit("onProbe", ["text": "unlocked"])
            default:
                host.emit("getSecret", ["challengeMode": .int(mode), "status": 102])
            }
            return nil
        case "probe.fail":
            let code = params["code"]!.intValue!
            throw code > 0 ? FlowHostError.sdk(code, shortCode: 7, "failed on purpose") : FlowHostError(ErrorCode(rawValue: code), message: "failed on purpose")
        case "probe.call":
            return try host.call(params["service"]!.stringValue!, params["params"] ?? .object())
        case "probe.timer":
            // A long timer holding a canary: the SDK must free it when the host says the timer is gone.
            let canary = Canary()
            return ["timerID": .optional(host.setTimer(milliseconds: 3_600_000) { _ = canary }.map { Int($0) }, JSON.int)]
        default:
            throw FlowHostError.methodNotFound
        }
    }

    func callService(_ name: String, params: JSON) throws(FlowHostError) -> JSON? {
        guard let value = params["n"]?.intValue else { throw FlowHostError.invalidParams(field: "n", reason: "required integer") }
        return ["n": .int(value * 2)]
    }
}

/// Counts its own deinits (tests read `released`).
final class Canary {
    nonisolated(unsafe) static var released = 0
    deinit { Canary.released += 1 }
}

/// A second flow that declares the same answer method (allowed) and nothing else.
final class TwinFlow: Flow {
    static let declaration = FlowDeclaration(
        name: "twin", version: "1",
        methods: [
            FlowMethod(
                "setSecret", params: [FlowParam("secret", .string), FlowParam("challengeMode", .integer, required: false)],
                answers: ["getSecret"])
        ],
        events: [FlowEvent("getSecret", challenge: true)])
    init(host: FlowHost, config: JSON) throws(FlowHostError) {}
    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? { nil }
}

/// Takes the name `probe` again: must be refused.
final class ImpostorFlow: Flow {
    static let declaration = FlowDeclaration(name: "probe", version: "9")
    init(host: FlowHost, config: JSON) throws(FlowHostError) {}
    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? { nil }
}

/// Takes the ordinary method `probe.emit`: must be refused.
final class MethodThiefFlow: Flow {
    static let declaration = FlowDeclaration(name: "thief", version: "1", methods: [FlowMethod("probe.emit")])
    init(host: FlowHost, config: JSON) throws(FlowHostError) {}
    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? { nil }
}
