import FlowHostCredentials
import FlowJSON
import JSONRPC
import Testing

/// Each module's services as a flow meets them: declared params checked
/// first, closed outcomes, spec §3's codes for refusals.
@Suite struct ServiceModuleTests {
    @Test func paramsAreCheckedAgainstTheDeclarationBeforeTheServiceRuns() throws {
        let h = try ServicesHarness()
        guard case .failure(let missing) = h.call("credentials.userState", ["userID": "alice"]) else { Issue.record("accepted"); return }
        #expect(missing.code == .invalidParams)
        #expect(missing.data?["field"]?.stringValue == "deviceID")
        guard case .failure(let badUser) = h.call("credentials.userState", ["userID": " leading space", "deviceID": "d"]) else {
            Issue.record("accepted a bad user id"); return
        }
        #expect(badUser.code == .invalidParams)
    }

    @Test func aUserStateIsNullForAStrangerAndFactsForAUser() throws {
        let h = try ServicesHarness()
        #expect(try h.call("credentials.userState", ["userID": "nobody", "deviceID": "d"]).get()?.isNull == true)
        _ = try OperatorActions(h.credentials).addUser("alice")
        let state = try #require(try h.call("credentials.userState", ["userID": "alice", "deviceID": "d"]).get())
        #expect(state["isActive"]?.boolValue == false)
        #expect(state["registeredOnDevice"]?.boolValue == false)
        #expect(state["activationAttemptsLeft"]?.intValue == CredentialSettings().maxActivationAttempts)
    }

    @Test func aWrongActivationCodeIsAClosedOutcomeThatCountsDown() throws {
        let h = try ServicesHarness()
        _ = try OperatorActions(h.credentials).addUser("alice")
        let first = try #require(try h.call("activation.verify", ["userID": "alice", "code": "WRONGCODE1", "deviceID": "d"]).get())
        #expect(first["outcome"]?.stringValue == "wrong")
        let second = try #require(try h.call("activation.verify", ["userID": "alice", "code": "WRONGCODE2", "deviceID": "d"]).get())
        #expect(second["attemptsLeft"]?.intValue == first["attemptsLeft"]!.intValue! - 1)
    }

    @Test func recordsAreCompareAndSetAndAConflictNamesTheOperation() throws {
        let h = try ServicesHarness()
        let put: JSON = ["operations": [["op": "put", "collection": "c", "key": "k", "value": ["n": 1], "expectVersion": 0]]]
        #expect(try h.call("records.apply", put).get()?["versions"]?[0]?.intValue == 1)
        guard case .failure(let conflict) = h.call("records.apply", put) else { Issue.record("a second create won"); return }
        #expect(conflict.code == .versionConflict)
        #expect(conflict.data?["index"]?.intValue == 0)
        #expect(conflict.data?["currentVersion"]?.intValue == 1)
        #expect(try h.call("records.get", ["collection": "c", "key": "k"]).get()?["value"]?["n"]?.intValue == 1)
    }

    @Test func thePasswordPolicyIsTheSDKsJSONText() throws {
        let h = try ServicesHarness()
        let policy = try #require(try h.call("password.policy", .object()).get()?["policy"]?.stringValue)
        #expect(try JSON.parse(policy).kind == .object)
    }
}
