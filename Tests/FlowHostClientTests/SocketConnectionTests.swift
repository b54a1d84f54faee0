import FlowHostClient
import Foundation
import XCTest

/// The Swift client against hosts behind a Unix-domain socket, each
/// connection served by a host of its own, as a socket unit with
/// `Accept=yes` serves them (here through Debian's systemd-socket-activate,
/// which scripts/setup.sh --test installs).
final class SocketConnectionTests: XCTestCase {
    static let password = "Tr0ub4dor&Zebra"

    func testAHostBehindAUnixSocketActivatesThenLogsInOnASecondConnection() async throws {
        let folder = try BuiltHost.scratchFolder(for: self)
        let config = folder + "/config.json", store = folder + "/store.sqlite", path = folder + "/flowhost.sock"
        try JSONEncoder().encode(FlowHostClientTests.config).write(to: URL(fileURLWithPath: config))
        let code = try XCTUnwrap(try BuiltHost.admin(["add-user", "alice"], store: store, config: config)["activationCode"]?.stringValue)
        let activator = try XCTUnwrap(
            ["/usr/bin/systemd-socket-activate", "/bin/systemd-socket-activate"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "systemd-socket-activate is installed by scripts/setup.sh --test (Debian's systemd)")
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: activator)
        listener.arguments = ["--accept", "--inetd", "-l", path, try BuiltHost.binary, "--store", store, "--config", config]
        listener.standardError = FileHandle.nullDevice
        try listener.run()
        // systemd-socket-activate outlives SIGTERM while it has served a connection.
        defer { kill(listener.processIdentifier, SIGKILL); listener.waitUntilExit() }
        // The socket's file appears at bind(), a moment before listen():
        // a connection refused until then is tried again.
        let deadline = Date().addingTimeInterval(10)
        var connected: FlowHostClient?
        while connected == nil {
            do { connected = try FlowHostClient(connectingTo: path) } catch where Date() < deadline { usleep(10_000) }
        }
        let first = try XCTUnwrap(connected)
        _ = try await first.initialize(device: ["deviceID": "swift-socket", "deviceName": "Swift", "ldaCapabilities": []])
        _ = try await first.nextEvent("getUser")
        try await first.setUser(userName: "alice")
        _ = try await first.nextEvent("getActivationCode")
        try await first.setActivationCode(activationCode: code)
        _ = try await first.nextEvent("getDeviceName")
        try await first.setDeviceName(deviceName: "Swift")
        _ = try await first.nextEvent("getPassword")
        try await first.setPassword(password: Self.password, challengeMode: 1)
        _ = try await first.nextEvent("onUserLoggedIn")
        let status = try await first.close()
        XCTAssertNil(status, "no exit status crosses a socket")

        let second = try FlowHostClient(connectingTo: path)
        _ = try await second.initialize(device: ["deviceID": "swift-socket", "deviceName": "Swift", "ldaCapabilities": []])
        _ = try await second.nextEvent("getUser")
        try await second.setUser(userName: "alice")
        _ = try await second.nextEvent("getPassword")
        try await second.setPassword(password: Self.password, challengeMode: 0)
        guard case .onUserLoggedIn(let loggedIn) = try await second.nextEvent("onUserLoggedIn") else { return XCTFail("expected a login") }
        XCTAssertEqual(loggedIn.userID, "alice")
        try await second.close()
    }

    func testNothingListeningIsAClearError() {
        XCTAssertThrowsError(try FlowHostClient(connectingTo: "/nonexistent/flowhost.sock")) { error in
            guard case .connectFailed(let reason)? = error as? FlowHostClientError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("/nonexistent/flowhost.sock"), reason)
        }
        let long = "/tmp/" + String(repeating: "x", count: 200)
        XCTAssertThrowsError(try FlowHostClient(connectingTo: long))
    }
}
