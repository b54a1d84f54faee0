@testable import FlowHostCore
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
        h.engine.session.begin(userID: "alice", sessionID: "s-1", factors: ["password"], ldaType: nil, openedBy: "mfa")
        let token = h.engine.session.issueReauthentication(userID: "alice")
        let request = Services.SessionReauthenticate(reauthentication: token)
        let answer = try #require(try h.call(Services.SessionReauthenticate.service, request.params).get())
        #expect(try Services.SessionReauthenticateOutcome(result: answer).reauthenticated)
        let extended = try #require(try h.call(Services.SessionExtend.service, Services.SessionExtend().params).get())
        _ = try Services.SessionExtendOutcome(result: extended)
    }
}
