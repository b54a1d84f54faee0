import FlowHostChildProcess
import FlowHostVocabulary
import FlowJSON
import JSONRPC

#if canImport(Glibc)
import Glibc
#endif

/// A small synchronous JSON-RPC client that drives a spawned host for the
/// demo, printing every exchange in a readable form.
final class DemoClient {
    /// Its stdin and stdout are ours; its stderr (its log) is the terminal's.
    private let host: ChildProcess
    private var buffer: [UInt8] = []
    private var nextID = 1
    /// Events received and not yet taken by `waitEvent`.
    private var events: [JSON] = []
    /// Answers to host requests, by method.
    var hostRequestHandlers: [String: (JSON) -> JSON] = [:]
    var echo = true

    init(executable: String, arguments: [String]) throws {
        do {
            host = try ChildProcess(
                [executable] + arguments,
                descriptors: [STDIN_FILENO: .pipeToChild, STDOUT_FILENO: .pipeFromChild, STDERR_FILENO: .parent(STDERR_FILENO)])
        } catch { throw Failure(description: error.description) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func request(_ method: String, _ params: JSON? = nil) throws -> Result<JSON, FlowHostError> {
        let id = nextID
        nextID += 1
        let message: JSON = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { message["params"] = params }
        print("  → \(method)\(params.map { " " + Self.masked($0, method: method) } ?? "")")
        try send(message)
        while true {
            let reply = try readMessage()
            if reply["method"] == nil, reply["id"]?.intValue == id {
                if let error = reply["error"] {
                    print("  ✗ error \(error.serialized())")
                    return .failure(
                        FlowHostError(ErrorCode(rawValue: error["code"]?.intValue ?? 0), message: error["message"]?.stringValue ?? "", data: error["data"]))
                }
                let result = reply["result"] ?? .null
                if echo, !result.isNull { print("  ← result \(result.serialized())") }
                return .success(result)
            }
        }
    }

    /// Sends a request that must succeed.
    @discardableResult
    func call(_ method: String, _ params: JSON? = nil) throws -> JSON {
        switch try request(method, params) {
        case .success(let result): return result
        case .failure(let error): throw Failure(description: "\(method) failed: \(error)")
        }
    }

    /// The next event named `name` (events before it are skipped and shown).
    @discardableResult
    func waitEvent(_ name: String) throws -> JSON {
        while true {
            if let index = events.firstIndex(where: { $0["method"]?.stringValue == name }) {
                let event = events[index]
                events.removeSubrange(0...index)
                return event["params"] ?? .object()
            }
            _ = try readMessage()
        }
    }

    func notify(_ method: String) throws {
        print("  → \(method) (notification)")
        try send(["jsonrpc": "2.0", "method": .string(method)])
    }

    func finish() throws -> Int32 {
        host.close(STDIN_FILENO)
        return host.wait().code
    }

    private func send(_ message: JSON) throws {
        var bytes: [UInt8] = []
        message.serialize(into: &bytes)
        bytes.append(0x0A)
        try host.write(bytes)
    }

    private func readMessage() throws -> JSON {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                let message = try line.withUnsafeBytes { try JSON.parse($0) }
                if let method = message["method"]?.stringValue {
                    if let id = message["id"] {
                        try answerHostRequest(id: id, method: method, params: message["params"] ?? .object())
                    } else {
                        print("  ⇠ \(method) \(Self.summary(message["params"] ?? .object()))")
                        events.append(message)
                    }
                }
                return message
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = try host.read(into: &chunk)
            guard count > 0 else { throw Failure(description: "the host closed its output") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    private func answerHostRequest(id: JSON, method: String, params: JSON) throws {
        print("  ⇠ host asks \(method) \(params.serialized())")
        let result = hostRequestHandlers[method]?(params) ?? .null
        print("  → answer \(result.serialized())")
        try send(["jsonrpc": "2.0", "id": id, "result": result])
    }

    /// Secrets are never printed, not even in a demo: they show as •••.
    static func masked(_ params: JSON, method: String) -> String {
        let secretNames: Set<String> = ["password", "currentPassword", "newPassword", "activationCode"]
        let secretPositions: [String: Set<Int>] = ["setPassword": [0], "updatePassword": [0, 1], "setActivationCode": [0]]
        let copy = params.deepCopy()
        if copy.kind == .object {
            for key in copy.keys where secretNames.contains(key) { copy[key] = "•••" }
            return copy.serialized()
        }
        let positions = secretPositions[method] ?? []
        return JSON.array(copy.elements.enumerated().map { positions.contains($0.offset) ? "•••" : $0.element }).serialized()
    }

    /// Events carry the SDK's full payload; the demo shows the telling parts.
    static func summary(_ params: JSON) -> String {
        let shown = JSON.object()
        for key in params.keys {
            guard let value = params[key] else { continue }
            if key == "response" {
                if let status = value["status"] { shown["status"] = status }
                if let flow = value["additionalInfo"]?["currentWorkFlow"], flow.stringValue != "NA" { shown["currentWorkFlow"] = flow }
                if let session = value["sessionInfo"]?["sessionID"], session.stringValue != "" { shown["sessionID"] = session }
            } else if key == "error" {
                if value["longErrorCode"]?.intValue != 0 { shown["error"] = value }
            } else {
                shown[key] = value
            }
        }
        return shown.serialized()
    }
}
