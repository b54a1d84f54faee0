import FlowHostAccounts
import FlowHostAudit
import FlowHostCredentials
import FlowHostSessions
import FlowHostStore
import Testing

/// Every step re-reads the user inside its own transaction: a change made
/// between two steps of a dialogue (by the operator, by another device) is
/// seen by the next step, and refused with the status that state calls for.
@Suite struct StateCheckTests {
    @Test func blockAfterTheCodeStopsCompletion() throws {
        let f = try Fixture()
        let code = try f.operatorActions.addUser("alice")
        let grant = try f.accept("alice", code.activationCode)
        try f.operatorActions.block("alice")
        let outcome = try f.service.completeActivation(
            "alice", deviceID: "d1", deviceName: "p", grant: grant, password: "Tr0ub4dor&Zebra", ldaType: nil, key: try f.newKey(), workflow: "x")
        #expect(outcome == .refused(.blocked(.admin)))
        #expect(outcome == .refused(.blocked(.admin)) && Refusal.blocked(.admin).status == 138)
        let user = try f.store.read { try $0.user("alice") }
        #expect(user?.status == .pending)
        #expect(try f.store.read { try $0.devices(userID: "alice") }.isEmpty)
    }

    @Test func blockStopsAnLDALogin() throws {
        let f = try Fixture()
        try f.activeUser()
        try f.operatorActions.block("alice")
        #expect(try f.service.openSession("alice", deviceID: "d1", workflow: "NormalLogin", proof: try f.proofText()) == .refused(.blocked(.admin)))
    }

    @Test func operatorBlockIs138EvenWithTheRightPassword() throws {
        let f = try Fixture()
        try f.activeUser()
        try f.operatorActions.block("alice")
        let (outcome, session) = try f.logIn("alice", "Tr0ub4dor&Zebra")
        #expect(outcome == .refused(.blocked(.admin)) && session == nil)
        #expect(Refusal.blocked(.admin).status == 138 && Refusal.blocked(.passwordAttempts).status == 141)
    }

    @Test func aStaleActivationDialogueCannotTouchAnActiveUser() throws {
        let f = try Fixture()
        let code = try f.operatorActions.addUser("alice")
        // Device d1 activates; device d2 still holds an open getActivationCode.
        let grant = try f.accept("alice", code.activationCode)
        _ = try f.service.completeActivation(
            "alice", deviceID: "d1", deviceName: "p", grant: grant, password: "Tr0ub4dor&Zebra", ldaType: nil, key: try f.newKey(), workflow: "x")
        for _ in 0..<5 {
            #expect(try f.service.verifyActivationCode("alice", code: "WRONGCODE1", deviceID: "d2") == .refused(.notRegisteredOnDevice))
        }
        #expect(try f.service.resendActivationCode("alice", deviceID: "d2") == .refused(.notRegisteredOnDevice))
        #expect(try f.service.resendActivationCode("alice", deviceID: "d1") == .refused(.alreadyActive))
        let user = try f.store.read { try $0.user("alice") }
        #expect(user?.blockReason == nil && user?.activationAttemptsLeft == 3)
        #expect(try f.logIn("alice", "Tr0ub4dor&Zebra").0 == .accepted(expired: false))
    }

    @Test func aGrantCompletesOnceAndOnlyItsOwnActivation() throws {
        let f = try Fixture()
        let code = try f.operatorActions.addUser("alice")
        let grant = try f.accept("alice", code.activationCode)
        let forged = try f.service.completeActivation(
            "alice", deviceID: "d2", deviceName: "p", grant: String(repeating: "0", count: 64), password: nil, ldaType: 1, key: try f.newKey(), workflow: "x")
        #expect(forged == .grantInvalid)
        guard case .completed = try f.service.completeActivation(
            "alice", deviceID: "d1", deviceName: "p", grant: grant, password: nil, ldaType: 1, key: try f.newKey(), workflow: "x")
        else { Issue.record("not completed"); return }
        let again = try f.service.completeActivation(
            "alice", deviceID: "d1", deviceName: "p", grant: grant, password: nil, ldaType: 1, key: try f.newKey(), workflow: "x")
        #expect(again == .refused(.alreadyActive))
    }

    @Test func anOperatorReissueVoidsAnUnspentGrant() throws {
        let f = try Fixture()
        let code = try f.operatorActions.addUser("alice")
        let grant = try f.accept("alice", code.activationCode)
        _ = try f.operatorActions.issueActivationCode("alice")
        let outcome = try f.service.completeActivation(
            "alice", deviceID: "d1", deviceName: "p", grant: grant, password: nil, ldaType: 1, key: try f.newKey(), workflow: "x")
        #expect(outcome == .grantInvalid)
    }

    @Test func theLoserOfARaceIsToldTheCodeWasUsedAndPaysNothing() throws {
        let f = try Fixture()
        let code = try f.operatorActions.addUser("alice")
        _ = try f.accept("alice", code.activationCode, device: "d1")
        #expect(try f.service.verifyActivationCode("alice", code: code.activationCode, deviceID: "d2") == .alreadyUsed(attemptsLeft: 3))
    }

    @Test func aSupersededCodeCostsNoAttemptAndResendsAreCapped() throws {
        let f = try Fixture { $0.maxResendsPerCodeLifetime = 2 }
        let code = try f.operatorActions.addUser("alice")
        guard case .sent = try f.service.resendActivationCode("alice", deviceID: "d9") else { Issue.record("not sent"); return }
        for _ in 0..<5 {
            #expect(try f.service.verifyActivationCode("alice", code: code.activationCode, deviceID: "d1") == .superseded(attemptsLeft: 3))
        }
        f.now += 30
        guard case .sent = try f.service.resendActivationCode("alice", deviceID: "d9") else { Issue.record("not sent"); return }
        f.now += 30
        // The cap: two per code lifetime (600 s); the window opened 60 s ago.
        #expect(try f.service.resendActivationCode("alice", deviceID: "d9") == .tooSoon(retryAfterSeconds: 540))
        f.now += 540
        guard case .sent = try f.service.resendActivationCode("alice", deviceID: "d9") else { Issue.record("not sent"); return }
        #expect(f.isAccepted(try f.service.verifyActivationCode("alice", code: try f.latestOutboxCode(), deviceID: "d1")))
        let resends = try f.store.read { try $0.auditEntries(userID: "alice", limit: 100) }.filter { $0.action == "activation.resend" }
        #expect(resends.count == 3)
    }

    @Test func blockAndUnblockEndEverySession() throws {
        let f = try Fixture()
        let first = try f.activeUser()
        var sessions = [first]
        for _ in 0..<20 {
            let (_, session) = try f.logIn("alice", "Tr0ub4dor&Zebra")
            sessions.append(session!)
        }
        #expect(try f.store.read { try $0.openSessions(userID: "alice") }.count == 21)
        try f.operatorActions.block("alice")
        #expect(try f.store.read { try $0.openSessions(userID: "alice") }.isEmpty)
        #expect(try f.store.read { try $0.session(sessions[7]) }?.endReason == "blocked")
        try f.operatorActions.unblock("alice")
        let (_, session) = try f.logIn("alice", "Tr0ub4dor&Zebra")
        #expect(try f.sessions.isOpen(session!))
    }

    @Test func sessionsEndAtTheirIdleAndAbsoluteLifetimes() throws {
        let f = try Fixture(sessions: {
            $0.idleTimeoutSeconds = 100
            $0.lifetimeSeconds = 1000
        })
        let session = try f.activeUser()
        f.now += 99
        #expect(try f.sessions.isOpen(session))
        try f.store.write { try $0.touchSession(session, at: f.now) }
        f.now += 99
        #expect(try f.sessions.isOpen(session), "idle for 99 s since it was used")
        f.now += 2
        #expect(try !f.sessions.isOpen(session))
        #expect(try f.store.read { try $0.session(session) }?.endReason == "idle")

        let (_, second) = try f.logIn("alice", "Tr0ub4dor&Zebra")
        for _ in 0..<11 {
            f.now += 95
            try f.store.write { try $0.touchSession(second!, at: f.now) }
        }
        #expect(try !f.sessions.isOpen(second!))
        #expect(try f.store.read { try $0.session(second!) }?.endReason == "lifetime")
    }

    @Test func unknownAndRepeatedEventsAreCountedNotLogged() throws {
        let f = try Fixture()
        try f.activeUser()
        let rowsBefore = try f.store.read { try $0.auditEntries(userID: nil, limit: 10_000) }.count
        for index in 0..<500 {
            try f.context.audit.record(in: f.store, userID: "someone-\(index)", action: "login.user", outcome: "unknown")
            try f.context.audit.record(in: f.store, userID: nil, action: "flow.reset", outcome: "ok")
            _ = try f.service.resendActivationCode("alice", deviceID: "d1")
        }
        #expect(try f.store.read { try $0.auditEntries(userID: nil, limit: 10_000) }.count == rowsBefore)
        let counts = try f.store.read { try $0.auditCounts(userID: nil, limit: 100) }
        #expect(counts.count == 3)
        #expect(counts.first { $0.action == "login.user" }?.count == 500)
        #expect(counts.first { $0.action == "activation.resend" }?.userID == "alice")
    }

    @Test func userIDsAreCountedInScalarsAndBytes() throws {
        let f = try Fixture()
        let combining = "a" + String(repeating: "\u{301}", count: 9_999)
        #expect(combining.count == 1)
        #expect(throws: CredentialError.self) { try f.operatorActions.addUser(combining) }
        #expect(throws: CredentialError.self) { try f.operatorActions.addUser(String(repeating: "é", count: 129)) }
        #expect(throws: CredentialError.self) { try f.operatorActions.addUser("bob\u{202E}") }
        #expect(throws: CredentialError.self) { try f.operatorActions.addUser(" bob") }
        _ = try f.operatorActions.addUser(String(repeating: "é", count: 128))
    }
}

@Suite struct DeviceProofTests {
    @Test func aChallengeIsUsedOnceAndAProofIsSpentOnce() throws {
        let f = try Fixture()
        try f.activeUser()
        guard case .challenge(let nonce, let message, let key) = try f.devices.begin(userID: "alice", deviceID: "d1", reason: "login"),
            let signature = try f.keyring.sign(message, keyID: key.keyID)
        else { Issue.record("no challenge"); return }
        guard case .proven(let proof) = try f.devices.finish(userID: "alice", deviceID: "d1", nonce: nonce, message: message, signature: signature)
        else { Issue.record("not proven"); return }
        // The same nonce and signature again: refused, and no second proof.
        #expect(
            try f.devices.finish(userID: "alice", deviceID: "d1", nonce: nonce, message: message, signature: signature)
                == .refused(reason: "stale-challenge"))
        let first = try f.passwords.logIn("alice", "Tr0ub4dor&Zebra", deviceID: "d1", workflow: "NormalLogin", possession: .proof(proof))
        #expect(first.0 == .accepted(expired: false))
        let replay = try f.passwords.logIn("alice", "Tr0ub4dor&Zebra", deviceID: "d1", workflow: "NormalLogin", possession: .proof(proof))
        #expect(replay.0 == .refused(.deviceNotProven))
        #expect(try f.passwords.logIn("alice", "wrong", deviceID: "d2", workflow: "NormalLogin", possession: nil).0 == .refused(.notRegisteredOnDevice))
        #expect(try f.service.userState("alice", deviceID: "d1")?.passwordAttemptsLeft == 3, "refusals spend no attempt")
    }

    @Test func aProofForOneDeviceDoesNotServeAnother() throws {
        let f = try Fixture()
        try f.activeUser()
        guard case .proof(let proof) = try f.proof() else { Issue.record("no proof"); return }
        let other = try f.service.openSession("alice", deviceID: "d9", workflow: "NormalLogin", proof: proof)
        #expect(other == .refused(.notRegisteredOnDevice))
        #expect(try f.service.openSession("alice", deviceID: "d1", workflow: "NormalLogin", proof: "forged") == .refused(.deviceNotProven))
    }
}
