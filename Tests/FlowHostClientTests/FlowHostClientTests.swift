import FlowHostClient
import Foundation
import XCTest

/// The Swift client's own surface against the built host: typed methods and
/// typed events, host-request handlers and their cancellation, errors.
final class FlowHostClientTests: XCTestCase {
    static let password = "Tr0ub4dor&Zebra"
    static let config: JSONValue = ["passwords": ["argon2": ["memoryKiB": 1024, "iterations": 1, "parallelism": 1]]]

    private func deployment() throws -> (binary: String, store: String, config: String) {
        let folder = try BuiltHost.scratchFolder(for: self)
        let config = folder + "/config.json"
        try JSONEncoder().encode(Self.config).write(to: URL(fileURLWithPath: config))
        return (try BuiltHost.binary, folder + "/store.sqlite", config)
    }

    func testTypedMethodsAndTypedEventsDriveAnActivationAndALogin() async throws {
        let (binary, store, config) = try deployment()
        let issued = try BuiltHost.admin(["add-user", "alice"], store: store, config: config)
        let code = try XCTUnwrap(issued["activationCode"]?.stringValue)
        let host = try FlowHostClient(executable: binary, arguments: ["--store", store, "--config", config])
        let events = host.events()
        let result = try await host.initialize(device: ["deviceID": "swift-1", "deviceName": "Swift", "ldaCapabilities": []])
        XCTAssertEqual(result["device"]?["deviceID"], "swift-1")

        // The events as an AsyncSequence, switched on by type.
        var seen: [String] = []
        loop: for await event in events {
            seen.append(event.name)
            switch event {
            case .getUser: try await host.setUser(userName: "alice")
            case .getActivationCode(let challenge):
                XCTAssertEqual(challenge.userID, "alice")
                try await host.setActivationCode(activationCode: code)
            case .getDeviceName: try await host.setDeviceName(deviceName: "Swift")
            case .getPassword(let challenge):
                XCTAssertEqual(challenge.challengeMode, 1)
                try await host.setPassword(password: Self.password, challengeMode: 1)
            case .onUserLoggedIn(let loggedIn):
                XCTAssertEqual(loggedIn.userID, "alice")
                XCTAssertEqual(loggedIn.response?.value(at: "status.statusCode"), 100)
                break loop
            default: break
            }
        }
        XCTAssertEqual(seen, ["getUser", "getActivationCode", "getDeviceName", "getPassword", "onUserLoggedIn"])

        // A refused request is a typed error with the host's code.
        do {
            try await host.setUser(userName: "alice")
            XCTFail("setUser while logged in must be refused")
        } catch let error as FlowHostClientError {
            XCTAssertEqual(error.code, -32003)
        }
        // A signing, then its verification, through the typed methods.
        try await host.authenticateUserAndSignData(payload: "from Swift", authLevel: 0, authenticatorType: 0, reason: "test")
        guard case .onAuthenticateUserAndSignData(let signed) = try await host.nextEvent("onAuthenticateUserAndSignData") else {
            return XCTFail("expected the signing's event")
        }
        XCTAssertEqual(signed.status?.value(at: "statusCode"), 100)
        let verified = try await host.verifyDataSignature(dataSignatureID: signed.dataSignatureID)
        XCTAssertEqual(verified["valid"], true)
        let status = try await host.close()
        XCTAssertEqual(status, 0)
    }

    func testAHostRequestTheHostGivesUpOnCancelsItsHandler() async throws {
        let (binary, store, config) = try deployment()
        let code = try XCTUnwrap(try BuiltHost.admin(["add-user", "bob"], store: store, config: config)["activationCode"]?.stringValue)
        let host = try FlowHostClient(executable: binary, arguments: ["--store", store, "--config", config])
        host.onRequest("platform/authenticateLDA") { params in ["authenticated": .bool(params["userID"] == "bob")] }
        try await host.initialize(device: ["deviceID": "swift-2", "deviceName": "Swift", "ldaCapabilities": [1]])
        _ = try await host.nextEvent("getUser")
        try await host.setUser(userName: "bob")
        _ = try await host.nextEvent("getActivationCode")
        try await host.setActivationCode(activationCode: code)
        _ = try await host.nextEvent("getDeviceName")
        try await host.setDeviceName(deviceName: "Swift")
        guard case .getUserConsentForLDA(let consent) = try await host.nextEvent("getUserConsentForLDA") else { return XCTFail() }
        try await host.setUserConsentForLDA(shouldEnrollLDA: true, challengeMode: Int64(try XCTUnwrap(consent.challengeMode)), authenticationType: 1)
        _ = try await host.nextEvent("onUserLoggedIn")

        // The next LDA prompt hangs until the host gives up on it.
        let prompt = PromptProbe()
        host.onRequest("platform/authenticateLDA") { _ in
            await prompt.opened()
            do { try await Task.sleep(for: .seconds(60)) } catch { await prompt.cancelled(); throw error }
            return ["authenticated": true]
        }
        try await host.logOff(userID: "bob")
        _ = try await host.nextEvent("getUser")
        try await host.setUser(userName: "bob")
        try await prompt.waitUntilOpen()
        try await host.resetAuthState()
        _ = try await host.nextEvent("$/cancelRequest")
        try await prompt.waitUntilCancelled()
        let status = try await host.close()
        XCTAssertEqual(status, 0)
    }

    func testTimeoutsAndTheHostsEndAreErrorsNotHangs() async throws {
        let (binary, store, _) = try deployment()
        let host = try FlowHostClient(executable: binary, arguments: ["--store", store])
        try await host.initialize(device: ["deviceID": "swift-3"])
        do {
            _ = try await host.nextEvent("onUserLoggedIn", timeout: .milliseconds(200))
            XCTFail("no login happened")
        } catch let error as FlowHostClientError {
            XCTAssertEqual(error, .timedOut(method: "onUserLoggedIn"))
        }
        // The getUser that came first was kept for a later call.
        guard case .getUser = try await host.nextEvent("getUser") else { return XCTFail() }
        let status = try await host.close()
        XCTAssertEqual(status, 0)
        do {
            _ = try await host.ping()
            XCTFail("the host has exited")
        } catch let error as FlowHostClientError {
            XCTAssertEqual(error, .hostExited)
        }
        XCTAssertThrowsError(try FlowHostClient(executable: "/nonexistent/flowhost"))
    }

    func testAStepThatDoesNotHoldFailsTheScenario() async throws {
        let (binary, store, config) = try deployment()
        var runner = ScenarioRunner(binary: binary, store: store, config: config)
        defer { runner.terminateAll() }
        try await runner.run(["start": "h", "device": ["deviceID": "swift-4"]])
        do {
            try await runner.run(["on": "h", "expect": "getUser", "match": ["recentlyLoggedInUser": "nobody-like-this"]])
            XCTFail("a match that does not hold must fail")
        } catch is ScenarioFailure {}
        do {
            try await runner.run(["on": "h", "call": "ping", "error": -32601])
            XCTFail("a call expected to fail that succeeds must fail")
        } catch is ScenarioFailure {}
        try await runner.run(["stop": "h"])
    }
}

/// Records what the LDA prompt went through (an actor: the handler runs on another task).
actor PromptProbe {
    private(set) var isOpen = false
    private(set) var wasCancelled = false
    func opened() { isOpen = true }
    func cancelled() { wasCancelled = true }

    func waitUntilOpen() async throws { try await poll { await self.isOpen } }
    func waitUntilCancelled() async throws { try await poll { await self.wasCancelled } }

    private nonisolated func poll(_ condition: @Sendable () async -> Bool) async throws {
        for _ in 0..<1000 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ScenarioFailure("timed out")
    }
}
