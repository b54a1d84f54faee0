import Foundation

/// Logins and activations through the real flows, on a real store.
struct FlowScenarios {
    let setup: Setup
    let store: String
    let config: String
    /// The device's keystore when its key is in the platform's custody (a
    /// P-256 key, spec §7), or nil when the host keeps it.
    let keystore: PlatformKeystore?
    /// Arguments every host of these scenarios is started with (a feed store beside a pooled one).
    var hostArguments: [String] = []
    static let password = "Tr0ub4dor&Zebra"

    /// `store`: another store (a PostgreSQL URL) instead of a new SQLite file.
    init(setup: Setup, name: String, argon2: (memoryKiB: Int, iterations: Int), store: String? = nil, keystore: PlatformKeystore? = nil) throws {
        self.setup = setup
        self.keystore = keystore
        self.store = store ?? setup.folder + "/\(name).sqlite"
        config = setup.folder + "/\(name).json"
        // One user approves 20 new devices within the hour: past the default approval limits, which the operator may raise.
        let text = #"{"passwords":{"argon2":{"memoryKiB":\#(argon2.memoryKiB),"iterations":\#(argon2.iterations),"parallelism":1},"maxAttempts":100},"activation":{"maxAttempts":100},"approvals":{"perUserPerHour":1000}}"#
        try text.write(toFile: config, atomically: true, encoding: .utf8)
    }

    func addUser(_ userID: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: setup.flowhost)
        process.arguments = ["admin", "add-user", userID, "--store", store, "--config", config, "--json"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let code = object["activationCode"] as? String
        else { throw BenchError("admin add-user failed") }
        return code
    }

    /// Creates users with one admin command; returns each one's activation code.
    func addUsers(_ userIDs: [String]) throws -> [String: String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: setup.flowhost)
        process.arguments = ["admin", "add-user"] + userIDs + ["--store", store, "--config", config, "--json"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var codes: [String: String] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], let user = object["userID"] as? String,
                let code = object["activationCode"] as? String
            else { throw BenchError("admin add-user failed") }
            codes[user] = code
        }
        guard codes.count == userIDs.count else { throw BenchError("admin add-user made \(codes.count) of \(userIDs.count) users") }
        return codes
    }

    func host(device: String, extra: [String] = []) throws -> Server {
        let server = try Server([setup.flowhost, "--store", store, "--config", config] + hostArguments + extra)
        server.send(Requests.initialize(device: device, keyCustody: keystore == nil ? nil : "platform") + "\n")
        _ = try server.readUntil(#""method":"getUser""#)
        return server
    }

    /// Activates `userID` from an open getUser; returns the seconds it took.
    func activate(_ server: Server, _ userID: String, code: String) throws -> Double {
        let started = now()
        try step(server, #"{"jsonrpc":"2.0","id":1,"method":"setUser","params":["\#(userID)"]}"#, until: "getActivationCode")
        try step(server, #"{"jsonrpc":"2.0","id":2,"method":"setActivationCode","params":["\#(code)"]}"#, until: "getDeviceName")
        try step(server, #"{"jsonrpc":"2.0","id":3,"method":"setDeviceName","params":["bench"]}"#, until: "getPassword")
        try step(server, #"{"jsonrpc":"2.0","id":4,"method":"setPassword","params":["\#(Self.password)",1]}"#, until: "onUserLoggedIn")
        return Double(now() - started) / 1e9
    }

    /// One password login from an open getUser; returns the seconds it took.
    func login(_ server: Server, _ userID: String) throws -> Double {
        let started = now()
        try step(server, #"{"jsonrpc":"2.0","id":5,"method":"setUser","params":["\#(userID)"]}"#, until: "getPassword")
        try step(server, #"{"jsonrpc":"2.0","id":6,"method":"setPassword","params":["\#(Self.password)",0]}"#, until: "onUserLoggedIn")
        return Double(now() - started) / 1e9
    }

    /// One new device for `userID`, approved from `approver` (which is on
    /// getUser's other side: logged in, with notifications pushed to it):
    /// the new device asks, the approver accepts with its password, the new
    /// device logs in and out, and the operator revokes it so the user's
    /// devices do not pile up. Returns the milliseconds from the approver's
    /// last step to the next event on the new device.
    func approveNewDevice(_ approver: Server, _ userID: String, device: String) throws -> Double {
        let newcomer = try host(device: device)
        try step(newcomer, #"{"jsonrpc":"2.0","id":1,"method":"setUser","params":["\#(userID)"]}"#, until: "addNewDeviceOptions")
        newcomer.send(#"{"jsonrpc":"2.0","id":2,"method":"performVerifyAuth","params":[true]}"# + "\n")
        _ = try newcomer.readUntil(#""id":2"#)
        let pushed = try read(approver, until: "onNotificationReceived")
        guard let range = pushed.range(of: #""notification_uuid":""#) else { throw BenchError("no uuid") }
        let uuid = String(pushed[range.upperBound...].prefix(36))
        try step(approver, #"{"jsonrpc":"2.0","id":3,"method":"updateNotification","params":["\#(uuid)","accept"]}"#, until: "getPassword")
        let started = now()
        approver.send(#"{"jsonrpc":"2.0","id":4,"method":"setPassword","params":["\#(Self.password)",3]}"# + "\n")
        _ = try read(newcomer, until: "getPassword")
        let latency = Double(now() - started) / 1e6
        _ = try read(approver, until: "onUpdateNotification")
        try step(newcomer, #"{"jsonrpc":"2.0","id":5,"method":"setPassword","params":["\#(Self.password)",0]}"#, until: "onUserLoggedIn")
        try logOff(newcomer, userID)
        newcomer.stop()
        _ = try read(approver, until: "onNotificationReceived")  // the informational notice
        try admin(["revoke-device", userID, device])
        return latency
    }

    func admin(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: setup.flowhost)
        process.arguments = ["admin"] + arguments + ["--store", store, "--config", config]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("admin \(arguments.joined(separator: " ")) failed") }
    }

    /// Reads to the event named `event` and returns its line.
    func read(_ server: Server, until event: String) throws -> String {
        while true {
            let line = String(decoding: try server.readLine(), as: UTF8.self)
            if line.contains(#""method":"\#(event)""#) { return line }
        }
    }

    func logOff(_ server: Server, _ userID: String) throws {
        try step(server, #"{"jsonrpc":"2.0","id":7,"method":"logOff","params":["\#(userID)"]}"#, until: "getUser")
    }

    /// Sends one request and reads to the event named `event`; any error reply
    /// or non-100 status on the way is a failure.
    func step(_ server: Server, _ request: String, until event: String) throws {
        server.send(request + "\n")
        while true {
            let line = String(decoding: try server.readLine(), as: UTF8.self)
            if let keystore, let answer = try keystore.answer(line) {
                server.send(answer + "\n")
                continue
            }
            if line.contains(#""error":{"code""#) || (line.contains(#""statusCode":"#) && !line.contains(#""statusCode":100"#)) {
                throw BenchError("unexpected answer: \(line.prefix(300))")
            }
            if line.contains(#""method":"\#(event)""#) { return }
        }
    }
}
