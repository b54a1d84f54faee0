import Foundation
import FlowHostTesting
import TermsFlow
import Testing

/// The withdrawal: a logged-in user confirms, then proves who they are
/// again through the built-in step-up flow. The Swift flow only (the C
/// example stops at accepting).
@Suite struct WithdrawalTests {
    static let password = "Tr0ub4dor&Zebra"

    /// A host with the terms flow beside the built-in ones, alice added,
    /// logged in, and the terms' `version` accepted by her.
    static func aliceLoggedIn(accepting version: String) throws -> TestHost {
        let host = try TestHost(flows: [TermsFlow.self], builtInLibraries: try Build.builtInFlows())
        let code = try host.addUser("alice")
        try host.initialize()
        try host.logIn("alice", password: password, activationCode: code)
        try host.request("terms.accept", ["userID": "alice", "version": .string(version)])
        _ = try host.expectEvent("getTermsConsent")
        try host.request("setTermsConsent", ["accepted": true])
        _ = try host.expectEvent("onTermsAccepted")
        return host
    }

    @Test func aWithdrawalIsConfirmedThenSteppedUp() throws {
        let host = try Self.aliceLoggedIn(accepting: "v1")
        try host.request("terms.withdraw")
        #expect(try host.expectEvent("getWithdrawalConsent").params == ["userID": "alice", "version": "v1"])
        try host.request("setWithdrawalConsent", ["confirmed": true])
        // The step-up of a flow that is not built in: FlowHost's own mode.
        let ask = try host.expectEvent("getPassword")
        #expect(ask.params["challengeMode"]?.intValue == ChallengeMode.flowStepUp)
        try host.request("setPassword", [.string(Self.password), .int(ChallengeMode.flowStepUp)])
        _ = try host.expectEvent("onTermsWithdrawn")
        #expect(try host.request("terms.status", ["userID": "alice"])["accepted"] == false)
    }

    @Test func aWrongPasswordKeepsTheAcceptanceUntilTheRightOne() throws {
        let host = try Self.aliceLoggedIn(accepting: "v1")
        try host.request("terms.withdraw")
        _ = try host.expectEvent("getWithdrawalConsent")
        try host.request("setWithdrawalConsent", ["confirmed": true])
        _ = try host.expectEvent("getPassword")
        try host.request("setPassword", ["not-her-password", .int(ChallengeMode.flowStepUp)])
        let again = try host.expectEvent("getPassword")
        #expect(again.params["response"]?["status"]?["statusCode"]?.intValue == 102)
        #expect(try host.request("terms.status", ["userID": "alice"])["accepted"] == true)
        try host.request("setPassword", [.string(Self.password), .int(ChallengeMode.flowStepUp)])
        _ = try host.expectEvent("onTermsWithdrawn")
    }

    @Test func aDeclineAsksForNoStepUp() throws {
        let host = try Self.aliceLoggedIn(accepting: "v1")
        try host.request("terms.withdraw")
        _ = try host.expectEvent("getWithdrawalConsent")
        try host.request("setWithdrawalConsent", ["confirmed": false])
        #expect(try host.expectEvent("onTermsKept").params["reason"] == "declined")
        #expect(host.nextEvent("getPassword") == nil)
    }

    /// A race, with a second host on the same store as a second device:
    /// alice accepts v2 there while this device's withdrawal of v1 waits for
    /// her password. The withdrawal removes only what it asked about.
    @Test func aNewerAcceptanceOnAnotherDeviceIsNotWithdrawn() throws {
        let phone = try Self.aliceLoggedIn(accepting: "v1")
        let tablet = try TestHost(beside: phone, flows: [TermsFlow.self], builtInLibraries: try Build.builtInFlows())
        try tablet.initialize()
        try phone.request("terms.withdraw")
        _ = try phone.expectEvent("getWithdrawalConsent")
        try phone.request("setWithdrawalConsent", ["confirmed": true])
        _ = try phone.expectEvent("getPassword")

        try tablet.request("terms.accept", ["userID": "alice", "version": "v2"])
        _ = try tablet.expectEvent("getTermsConsent")
        try tablet.request("setTermsConsent", ["accepted": true])

        try phone.request("setPassword", [.string(Self.password), .int(ChallengeMode.flowStepUp)])
        #expect(try phone.expectEvent("onTermsKept").params["reason"] == "changed")
        #expect(try phone.request("terms.status", ["userID": "alice"]) == ["accepted": true, "version": "v2"])
    }
}
