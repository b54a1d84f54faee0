@testable import FlowHostCore
import FlowHostCredentials
import FlowHostServiceTypes
import FlowHostVocabulary
import FlowJSON
import JSONRPC
import Testing

/// The generated service types (`Services.…`): what a flow sends is what
/// the host reads, and an outcome reads back as it was written.
@Suite struct ServiceTypesTests {
    @Test func aRequestsParamsReadBackAndOptionalsStayOut() throws {
        let login = Services.PasswordLogin(userID: "alice", password: "pw", deviceID: "d-1", workflow: "NormalLogin")
        #expect(login.params.keys.sorted() == ["deviceID", "password", "userID", "workflow"], "nil optionals are left out")
        let back = try Services.PasswordLogin(params: login.params)
        #expect(back.userID == "alice" && back.proof == nil && back.workflow == "NormalLogin")
        do {
            _ = try Services.PasswordLogin(params: ["userID": "alice", "password": 7, "deviceID": "d", "workflow": "w"])
            Issue.record("a mistyped member was read")
        } catch {
            #expect(error.field == "password")
        }
    }

    @Test func outcomesReadBackAndAnUnknownOutcomeIsAnError() throws {
        let written = Services.PasswordStepUpOutcome.accepted(expired: false, reauthentication: "t-1")
        guard case .accepted(false, "t-1") = try Services.PasswordStepUpOutcome(result: written.result) else {
            Issue.record("read back as something else: \(written.result.serialized())")
            return
        }
        #expect(Services.DeviceProveOutcome.unbound.result.serialized() == #"{"outcome":"unbound"}"#)
        #expect(throws: ServiceFieldError.self) { try Services.DeviceProveOutcome(result: ["outcome": "maybe"]) }
        #expect(throws: ServiceFieldError.self) { try Services.PasswordStepUpOutcome(result: ["outcome": "wrong"]) }
    }

    @Test func theHostAnswersInTheTypesOwnShape() throws {
        let h = try ServicesHarness()
        h.engine.session.begin(userID: "alice", sessionID: "s-1", feedPosition: nil, factors: ["password"], ldaType: nil, openedBy: "mfa")
        let token = h.engine.session.issueReauthentication(userID: "alice")
        let request = Services.SessionReauthenticate(reauthentication: token)
        let answer = try #require(try h.call(Services.SessionReauthenticate.service, request.params).get())
        #expect(try Services.SessionReauthenticateOutcome(result: answer).reauthenticated)
        let extended = try #require(try h.call(Services.SessionExtend.service, Services.SessionExtend().params).get())
        _ = try Services.SessionExtendOutcome(result: extended)
    }

    /// The credentials module answers through the generated outcome types: a
    /// flow's closed switch sees every case the host can send.
    @Test func activationAndPasswordAnswersReadAsTheirOutcomes() throws {
        let h = try ServicesHarness()
        let issued = try OperatorActions(h.credentials).addUser("alice")
        func call<Request: ServiceRequest>(_ request: Request) throws -> Request.Outcome {
            try Request.Outcome(result: try #require(try h.call(Request.service, request.params).get()))
        }
        guard case .wrong(let left) = try call(Services.ActivationVerify(userID: "alice", code: "000000000", deviceID: "d-1")), left > 0 else {
            Issue.record("a wrong code")
            return
        }
        guard case .accepted(let grant) = try call(Services.ActivationVerify(userID: "alice", code: issued.activationCode, deviceID: "d-1")) else {
            Issue.record("the right code")
            return
        }
        #expect(!grant.isEmpty)
        guard case .policy(let problems, let violations) = try call(Services.PasswordCheck(userID: "alice", password: "short")) else {
            Issue.record("a password the policy refuses")
            return
        }
        #expect(!problems.isEmpty)
        #expect(violations.elements.count == problems.count && violations.elements.first?["rule"]?.stringValue == "minL")
        #expect(try JSON.parse(try call(Services.PasswordPolicy()).policy).keys.isEmpty == false, "the SDK's policy JSON")
        guard case .refused(let status, _) = try call(Services.PasswordVerify(userID: "alice", password: "x", deviceID: "d-9")) else {
            Issue.record("a password check on a device the user never registered")
            return
        }
        #expect(status == SDKCode.deviceNotRegistered)
    }

    /// A result that may be null reads as nil, and a known user as their state.
    @Test func aNullableResultReadsAsNilOrAsItsType() throws {
        let h = try ServicesHarness()
        _ = try OperatorActions(h.credentials).addUser("alice")
        func state(_ userID: String) throws -> Services.CredentialsUserStateOutcome? {
            let request = Services.CredentialsUserState(userID: userID, deviceID: "d-1")
            return try Services.CredentialsUserState.Outcome(result: try #require(try h.call(Services.CredentialsUserState.service, request.params).get()))
        }
        #expect(try state("nobody") == nil)
        let alice = try #require(try state("alice"))
        #expect(alice.userID == "alice" && !alice.isActive && alice.verificationKey != nil && alice.blockedStatus == nil)
        #expect(Services.RecordsGetOutcome?.none.result.kind == .null)
    }
}
