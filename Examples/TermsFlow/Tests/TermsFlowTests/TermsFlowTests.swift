import Foundation
import FlowHostTesting
import TermsFlow
import Testing

/// Which build of the flow a test drives: the Swift type itself, or the C
/// build of the same flow (Examples/terms-c) when TERMS_C_LIBRARY names it.
/// The host cannot tell them apart: both speak the C ABI.
enum Build: CustomStringConvertible, Sendable {
    case swift
    case c(String)

    static var all: [Build] {
        [.swift] + (ProcessInfo.processInfo.environment["TERMS_C_LIBRARY"].map { [.c($0)] } ?? [])
    }

    var description: String {
        switch self {
        case .swift: "Swift"
        case .c: "C"
        }
    }

    /// An embedded host with this build of the flow loaded and initialized:
    /// the real engine, the host's records services on a throw-away SQLite
    /// store, and a clock the test moves. The Swift flow's withdrawal uses
    /// `stepup.authenticate`, and a test host refuses a flow whose `uses`
    /// nothing offers: the built-in flows come with it.
    func host() throws -> TestHost {
        let config: JSON = ["challengeTimeoutMs": 60_000]
        let host: TestHost
        switch self {
        case .swift: host = try TestHost(flows: [TermsFlow.self], builtInLibraries: try Self.builtInFlows(), config: config)
        case .c(let library): host = try TestHost(libraries: [library], config: config)
        }
        try host.initialize()
        return host
    }

    /// The built-in flows a step-up needs, as libraries: step-up, which runs
    /// it; mfa, which logs the user in (it calls device-activation's
    /// service, so that one too). `swift build --product FlowPluginStepUp`
    /// (and `FlowPluginMFA`, `FlowPluginDeviceActivation`) builds them from
    /// the dependency, beside this test's own binary.
    static func builtInFlows() throws -> [String] {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        return try ["FlowPluginDeviceActivation", "FlowPluginMFA", "FlowPluginStepUp"].map { product in
            let path = "\(folder)/lib\(product).so"
            guard FileManager.default.fileExists(atPath: path) else { throw TestHostError("no \(path): swift build --product \(product)") }
            return path
        }
    }
}

@Suite struct TermsFlowTests {
    @Test(arguments: Build.all)
    func acceptingStoresTheVersionAndIsNotAskedAgain(build: Build) throws {
        let host = try build.host()
        #expect(try host.request("terms.status", ["userID": "alice"]) == ["accepted": false, "version": .null])
        try host.request("terms.accept", ["userID": "alice", "version": "2026-11"])
        let asked = try host.expectEvent("getTermsConsent")
        #expect(asked.params["version"]?.stringValue == "2026-11")
        try host.request("setTermsConsent", ["accepted": true])
        #expect(try host.expectEvent("onTermsAccepted").params["userID"]?.stringValue == "alice")
        #expect(try host.request("terms.status", ["userID": "alice"]) == ["accepted": true, "version": "2026-11"])
        #expect(try host.request("terms.accept", ["userID": "alice", "version": "2026-11"]) == ["accepted": true, "already": true])
        #expect(host.nextEvent("getTermsConsent") == nil, "the same version is not asked for twice")
    }

    @Test(arguments: Build.all)
    func aDeclineStoresNothing(build: Build) throws {
        let host = try build.host()
        try host.request("terms.accept", ["userID": "bob", "version": "v1"])
        _ = try host.expectEvent("getTermsConsent")
        try host.request("setTermsConsent", ["accepted": false])
        #expect(try host.expectEvent("onTermsDeclined").params["reason"]?.stringValue == "declined")
        #expect(try host.request("terms.status", ["userID": "bob"])["accepted"] == false)
    }

    @Test(arguments: Build.all)
    func anUnansweredChallengeExpiresWhenTheClockPassesItsDeadline(build: Build) throws {
        let host = try build.host()
        try host.request("terms.accept", ["userID": "carol", "version": "v1"])
        _ = try host.expectEvent("getTermsConsent")
        host.advance(seconds: 59)
        #expect(host.nextEvent("onTermsDeclined") == nil)
        host.advance(seconds: 2)
        #expect(try host.expectEvent("onTermsDeclined").params["reason"]?.stringValue == "expired")
        // The challenge is closed: a late answer is refused by the host.
        #expect(throws: FlowHostError.self) { try host.request("setTermsConsent", ["accepted": true]) }
    }

    @Test(arguments: Build.all)
    func theHostChecksParamsBeforeTheFlowRuns(build: Build) throws {
        let host = try build.host()
        do {
            try host.request("terms.accept", ["userID": " alice", "version": "v1"])
            Issue.record("a user id with a leading space was taken")
        } catch {
            #expect(error.code == .invalidParams && error.data?["field"]?.stringValue == "userID")
        }
    }
}
