import FlowHostClient
import Foundation
import XCTest

/// Protocol/scenarios/flows.json (format in its README), run with the Swift
/// client: the same suite the Python and Node clients run.
final class SharedScenarioTests: XCTestCase {
    func testTheSharedScenarioSuite() async throws {
        let binary = try BuiltHost.binary
        let suiteURL = BuiltHost.repositoryRoot.appendingPathComponent("Protocol/scenarios/flows.json")
        let suite = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: suiteURL))
        let folder = try BuiltHost.scratchFolder(for: self)
        let store = folder + "/store.sqlite", config = folder + "/config.json"
        try JSONEncoder().encode(suite["config"] ?? [:]).write(to: URL(fileURLWithPath: config))
        var runner = ScenarioRunner(binary: binary, store: store, config: config)
        defer { runner.terminateAll() }
        let scenarios = try XCTUnwrap(suite["scenarios"]?.arrayValue)
        XCTAssertGreaterThanOrEqual(scenarios.count, 7)
        for scenario in scenarios {
            let name = scenario["name"]?.stringValue ?? "?"
            for (index, step) in (scenario["steps"]?.arrayValue ?? []).enumerated() {
                do { try await runner.run(step) } catch {
                    XCTFail("\(name), step \(index + 1): \(error)")
                    return
                }
            }
        }
    }
}

/// One step at a time, as the README says.
struct ScenarioRunner {
    let binary: String, store: String, config: String
    var hosts: [String: FlowHostClient] = [:]
    var saved: [String: JSONValue] = [:]

    init(binary: String, store: String, config: String) {
        self.binary = binary
        self.store = store
        self.config = config
    }

    mutating func run(_ step: JSONValue) async throws {
        if let arguments = step["admin"]?.arrayValue {
            let output = try BuiltHost.admin(arguments.compactMap(\.stringValue), store: store, config: config)
            if let name = step["save"]?.stringValue { saved[name] = output }
        } else if let name = step["start"]?.stringValue {
            let host = try FlowHostClient(executable: binary, arguments: ["--store", store, "--config", config])
            hosts[name] = host
            for (method, result) in step["handle"]?.objectValue ?? [:] { host.onRequest(method) { _ in result } }
            try await host.initialize(device: step["device"] ?? [:])
        } else if let name = step["stop"]?.stringValue {
            let status = try await host(.string(name)).close()
            hosts[name] = nil
            guard status == 0 else { throw ScenarioFailure("the host exited with \(status)") }
        } else if let event = step["expect"]?.stringValue {
            let received = try await host(step["on"]).nextEvent(event)
            try check(received.params, step["match"], what: event)
            if let name = step["save"]?.stringValue { saved[name] = received.params }
        } else if let method = step["call"]?.stringValue {
            let params = try substitute(step["params"] ?? [:])
            let result: JSONValue
            do { result = try await host(step["on"]).request(method, params) } catch let error as FlowHostClientError {
                if let code = error.code, code == step["error"]?.intValue { return }
                throw error
            }
            if let code = step["error"]?.intValue { throw ScenarioFailure("\(method) succeeded, expected error \(code)") }
            try check(result, step["match"], what: method)
            if let name = step["save"]?.stringValue { saved[name] = result }
        } else {
            throw ScenarioFailure("unknown step \(step)")
        }
    }

    func terminateAll() { for host in hosts.values { Task { _ = await host.waitForExit(timeout: .zero) } } }

    private func host(_ name: JSONValue?) throws -> FlowHostClient {
        guard let name = name?.stringValue, let host = hosts[name] else { throw ScenarioFailure("no host \(name.map { "\($0)" } ?? "named")") }
        return host
    }

    private func check(_ value: JSONValue, _ match: JSONValue?, what: String) throws {
        for (path, wanted) in match?.objectValue ?? [:] {
            let expected = try substitute(wanted), actual = value.value(at: path)
            guard actual == expected else { throw ScenarioFailure("\(what): \(path) is \(actual.map { "\($0)" } ?? "absent"), expected \(expected)") }
        }
    }

    /// `{{name.path}}` (the whole string) becomes the saved value there.
    private func substitute(_ value: JSONValue) throws -> JSONValue {
        switch value {
        case .string(let text) where text.hasPrefix("{{") && text.hasSuffix("}}"):
            let reference = text.dropFirst(2).dropLast(2)
            let name = String(reference.prefix { $0 != "." })
            guard let base = saved[name] else { throw ScenarioFailure("nothing saved as \(name)") }
            let path = reference.dropFirst(name.count + 1)
            return path.isEmpty ? base : (base.value(at: String(path)) ?? .null)
        case .array(let elements): return .array(try elements.map(substitute))
        case .object(let members): return .object(try members.mapValues(substitute))
        default: return value
        }
    }
}
