import Foundation
import FlowHostTesting
import Testing

/// The embedded test host itself: built libraries, the scripted client's
/// host requests, the clock, the change feed, and refusals with the host's reasons.
@Suite struct TestHostTests {
    /// The built products (`swift build` first; scripts/test.sh sets FLOWHOST_BIN_DIR).
    static var binaries: String {
        ProcessInfo.processInfo.environment["FLOWHOST_BIN_DIR"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(".build/debug").path
    }

    static func library(_ name: String) throws -> String {
        let path = binaries + "/lib\(name).so"
        // A failure, not a skip: a suite that silently skips proves nothing.
        guard FileManager.default.fileExists(atPath: path) else { throw TestHostError("no built \(path): run `swift build` first") }
        return path
    }

    @Test func aBuiltCLibraryIsLoadedAndDrivenWithTheChangeFeed() throws {
        let host = try TestHost(libraries: [try Self.library("FlowExampleEchoC")])
        #expect(host.flowNames == ["echo"])
        try host.initialize()
        #expect(try host.request("echo", ["text": "hi"]) == ["text": "hi"])
        #expect(try host.request("echo.subscribe", ["topic": "echo.room"]) == ["ok": true])
        #expect(try host.request("echo.publish", ["topic": "echo.room", "payload": ["n": 1]]) == ["ok": true])
        #expect(try host.expectEvent("onEchoFeed").params == ["topic": "echo.room", "payload": ["n": 1]])
        do {
            try host.request("echo.subscribe", ["topic": "sessions.ended"])
            Issue.record("a flow read a host topic it does not list")
        } catch {
            #expect(error.code == .notPermitted)
        }
    }

    /// Each library is loaded from a descriptor of its own (/proc/self/fd/N),
    /// opened one after the other: the second must not be taken for the
    /// first, whose image the dynamic linker knows by that same name.
    @Test func librariesLoadedOneAfterAnotherAreEachItself() throws {
        let host = try TestHost(
            libraries: [try Self.library("FlowExampleEchoC")],
            builtInLibraries: [try Self.library("FlowPluginStepUp"), try Self.library("FlowPluginLDAToggle")])
        #expect(Set(host.flowNames) == ["step-up", "lda-toggle", "echo"])
    }

    @Test func hostRequestsAreAnsweredByAHandlerOrByHand() throws {
        let host = try TestHost(flows: [AskingFlow.self])
        try host.initialize()
        try host.request("asker.ask", ["question": "pay?"])
        #expect(host.nextEvent("onHeard") == nil)
        let pending = try #require(host.pendingHostRequests.first)
        #expect(pending.method == "platform/confirm" && pending.params["question"]?.stringValue == "pay?")
        host.reply(to: pending, with: .success(["confirmed": true]))
        #expect(try host.expectEvent("onHeard").params == ["answer": ["confirmed": true]])

        host.answer("platform/confirm") { _ in .failure(FlowHostError(.notAllowedNow, message: "no")) }
        try host.request("asker.ask", ["question": "again?"])
        #expect(try host.expectEvent("onHeard").params == ["error": .int(ErrorCode.notAllowedNow.rawValue)])
        #expect(host.pendingHostRequests.isEmpty)
    }

    @Test func timersFireWhenTheClockIsMovedNotBefore() throws {
        let host = try TestHost(flows: [AskingFlow.self])
        try host.initialize()
        try host.request("asker.later", ["ms": 5000])
        host.advance(milliseconds: 4999)
        #expect(host.nextEvent("onLater") == nil)
        host.advance(milliseconds: 1)
        _ = try host.expectEvent("onLater")
    }

    /// The wall clock a flow reads is the test's: it starts at the machine's
    /// time, moves with `advance`, and steps alone, back or forward, when set.
    @Test func theWallClockIsTheTestsToAdvanceAndToStep() throws {
        let host = try TestHost(flows: [AskingFlow.self])
        try host.initialize()
        let machine = Int(time(nil)) * 1000
        let start = try host.request("asker.clocks")
        let wall = try #require(start["wall"]?.intValue), monotonic = try #require(start["monotonic"]?.intValue)
        #expect(abs(wall - machine) < 60_000, "starts at the machine's time")
        #expect(wall == Int(host.wallClockMilliseconds))

        host.advance(milliseconds: 1500)
        #expect(try host.request("asker.clocks") == ["wall": .int(wall + 1500), "monotonic": .int(monotonic + 1500)])

        host.wallClockMilliseconds -= 3_600_000  // an hour back, as an NTP step would
        #expect(try host.request("asker.clocks") == ["wall": .int(wall + 1500 - 3_600_000), "monotonic": .int(monotonic + 1500)])
    }

    @Test func aFlowThatClaimsABuiltInFlowsNameIsRefusedWithTheHostsReason() throws {
        let stepUp = try Self.library("FlowPluginStepUp")
        #expect(throws: TestHostError.self) { _ = try TestHost(flows: [LookalikeStepUp.self], builtInLibraries: [stepUp]) }
        do {
            _ = try TestHost(flows: [LookalikeStepUp.self], builtInLibraries: [stepUp])
        } catch {
            #expect("\(error)".contains("service stepup.authenticate is owned by the built-in flow step-up"))
        }
        // Without the built-in flow the name is free.
        #expect(try TestHost(flows: [LookalikeStepUp.self]).flowNames == ["lookalike"])
    }

    /// Two hosts on one store, as two devices: what one publishes reaches
    /// the other's subscription, and the folder lasts as long as either.
    @Test func aSecondHostBesideTheFirstSharesItsStoreAndItsFeed() throws {
        let echo = try Self.library("FlowExampleEchoC")
        var folder = ""
        do {
            let second: TestHost
            do {
                let first = try TestHost(libraries: [echo])
                second = try TestHost(beside: first, libraries: [echo])
                folder = first.folder
                #expect(second.folder == folder)
                try first.initialize()
                try second.initialize(device: ["deviceID": "second-device", "deviceName": "Second", "ldaCapabilities": []])
                #expect(try second.request("echo.subscribe", ["topic": "echo.room"]) == ["ok": true])
                #expect(try first.request("echo.publish", ["topic": "echo.room", "payload": ["n": 2]]) == ["ok": true])
                second.receiveFeed()
                #expect(try second.expectEvent("onEchoFeed").params == ["topic": "echo.room", "payload": ["n": 2]])
                #expect(try !first.addUser("alice").isEmpty)
                #expect(throws: (any Error).self, "one store: the second host sees the first's user") { try second.addUser("alice") }
            }
            #expect(FileManager.default.fileExists(atPath: folder + "/store.sqlite"), "the second host still uses it")
            withExtendedLifetime(second) {}
        }
        #expect(!FileManager.default.fileExists(atPath: folder), "removed with the last host")
    }

    /// The log-in helper a step-up's test starts with: a new user activated
    /// and logged in through the built-in mfa flow, then again with the
    /// password alone after a log-off.
    @Test func aUserIsLoggedInThroughTheBuiltInFlows() throws {
        let builtIn = try ["FlowPluginMFA", "FlowPluginDeviceActivation", "FlowPluginStepUp"].map(Self.library)
        let host = try TestHost(builtInLibraries: builtIn)
        let code = try host.addUser("alice")
        try host.initialize()
        let first = try host.logIn("alice", password: "Tr0ub4dor&Zebra", activationCode: code)
        #expect(first["userID"] == "alice")
        try host.request("logOff", ["alice"])
        _ = try host.expectEvent("onUserLoggedOff")
        let again = try host.logIn("alice", password: "Tr0ub4dor&Zebra")
        #expect(again["response"]?["sessionInfo"]?["sessionType"]?.intValue == 1)
        do {
            try host.request("logOff", ["alice"])
            _ = try host.expectEvent("onUserLoggedOff")
            try host.logIn("alice", password: "wrong-password")
            Issue.record("a wrong password logged in")
        } catch let error as TestHostError {
            #expect(error.description.contains("status 102"), "\(error)")
        }
    }

    /// A flow that is not built in steps up with FlowHost's own challenge
    /// mode; one of the SDK's is refused before the step-up starts.
    @Test func aFlowFromElsewhereStepsUpWithFlowHostsOwnModeOnly() throws {
        let builtIn = try ["FlowPluginMFA", "FlowPluginDeviceActivation", "FlowPluginStepUp"].map(Self.library)
        let host = try TestHost(flows: [SteppingFlow.self], builtInLibraries: builtIn)
        let code = try host.addUser("alice")
        try host.initialize()
        try host.logIn("alice", password: "Tr0ub4dor&Zebra", activationCode: code)

        try host.request("stepper.go", ["mode": .int(ChallengeMode.stepUp)])
        #expect(try host.expectEvent("onStepped").params == ["error": .int(ErrorCode.invalidParams.rawValue), "field": "challengeMode"])
        #expect(host.nextEvent("getPassword") == nil)

        try host.request("stepper.go")
        let ask = try host.expectEvent("getPassword")
        #expect(ask.params["challengeMode"]?.intValue == ChallengeMode.flowStepUp)
        try host.request("setPassword", ["Tr0ub4dor&Zebra", .int(ChallengeMode.flowStepUp)])
        #expect(try host.expectEvent("onStepped").params == ["status": 100])
    }

    @Test func theStoreIsRealAndThrownAway() throws {
        var folder = ""
        do {
            let host = try TestHost(flows: [AskingFlow.self])
            folder = host.folder
            #expect(FileManager.default.fileExists(atPath: folder + "/store.sqlite"))
            #expect(try !host.addUser("alice").isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: folder), "removed with the host")
    }
}
