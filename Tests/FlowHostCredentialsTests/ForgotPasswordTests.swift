import FlowHostCredentials
import FlowHostSessions
import FlowHostStore
import FlowJSON
import Testing

/// `forgotPassword`: off unless configured; a registered device that proves
/// its key gets a code; the reset ends every session and restores the
/// password attempts, and nothing changes before it.
@Suite struct ForgotPasswordTests {
    static func enabled() throws -> Fixture { try Fixture { $0.forgotPasswordEnabled = true } }

    @Test func offByDefaultAndReadFromTheConfig() throws {
        #expect(CredentialSettings().forgotPasswordEnabled == false)
        #expect(try CredentialSettings.parse(passwords: ["forgotPassword": true], activation: nil).forgotPasswordEnabled)
        #expect(throws: CredentialSettings.Invalid.self) { try CredentialSettings.parse(passwords: ["forgotPassword": 1], activation: nil) }
        let f = try Fixture()
        try f.activeUser()
        let refused = try ForgotPassword(f.service).sendCode("alice", deviceID: "d1", proof: try f.proofText())
        #expect(refused == .refused(.forgotPasswordDisabled))
        #expect(Refusal.forgotPasswordDisabled.status == 170)
    }

    @Test func onlyARegisteredDeviceThatProvesItsKeyGetsACode() throws {
        let f = try Self.enabled()
        try f.activeUser()
        let forgot = ForgotPassword(f.service)
        let queued = try f.store.read { try $0.outbox(includeDelivered: false) }.count
        // Another device cannot prove alice's key (the proof is d1's): told only that, never whether alice is registered there.
        #expect(try forgot.sendCode("alice", deviceID: "stranger", proof: try f.proofText()) == .refused(.deviceNotProven))
        #expect(try forgot.sendCode("alice", deviceID: "d1", proof: "not-a-proof") == .refused(.deviceNotProven))
        #expect(try f.store.read { try $0.outbox(includeDelivered: false) }.count == queued, "no code sent")
        try f.operatorActions.block("alice")
        #expect(try forgot.sendCode("alice", deviceID: "d1", proof: try f.proofText()) == .refused(.blocked(.admin)))
    }

    @Test func theResetEndsEverySessionAndRestoresTheAttemptsOnlyAtTheEnd() throws {
        let f = try Self.enabled()
        let first = try f.activeUser()
        _ = try f.passwords.verify("alice", "wrong", deviceID: "d1")
        let forgot = ForgotPassword(f.service)
        guard case .sent(_, 3) = try forgot.sendCode("alice", deviceID: "d1", proof: try f.proofText()) else {
            Issue.record("no code sent")
            return
        }
        #expect(try forgot.verifyCode("alice", code: "WRONGCODE0", deviceID: "d1") == .wrong(triesLeft: 2))
        guard case .accepted(let grant) = try forgot.verifyCode("alice", code: try f.latestOutboxCode(), deviceID: "d1") else {
            Issue.record("the code was not accepted")
            return
        }
        #expect(try f.service.userState("alice", deviceID: "d1")?.passwordAttemptsLeft == 2, "nothing restored before the reset")
        #expect(try f.store.read { try $0.openSessions(userID: "alice") }.map(\.sessionID) == [first])
        let spent = try f.proofText()
        #expect(try forgot.complete("alice", deviceID: "d1", grant: grant, proof: "not-a-proof", password: "Another&Passw0rd1", ldaType: nil)
            == .refused(.deviceNotProven), "the key is proved again at the reset")
        guard case .completed(let session) = try forgot.complete(
            "alice", deviceID: "d1", grant: grant, proof: spent, password: "Another&Passw0rd1", ldaType: nil)
        else {
            Issue.record("the reset did not complete")
            return
        }
        #expect(try f.store.read { try $0.openSessions(userID: "alice") }.map(\.sessionID) == [session.sessionID], "every other session ended")
        #expect(try f.service.userState("alice", deviceID: "d1")?.passwordAttemptsLeft == 3)
        #expect(try f.passwords.verify("alice", "Another&Passw0rd1", deviceID: "d1") == .accepted(expired: false))
        #expect(try forgot.complete("alice", deviceID: "d1", grant: grant, proof: try f.proofText(), password: "Third&Passw0rd77", ldaType: nil)
            == .grantInvalid, "a grant resets once")
    }

    /// A code is bound to its purpose: a recovery code (`resetBlockedUserAccount`)
    /// is no forgot-password code and the reverse, and trying one for the
    /// wrong purpose spends nothing of it.
    @Test func aCodeSentForAnotherPurposeIsNoCodeAndStaysLive() throws {
        let f = try Fixture {
            $0.forgotPasswordEnabled = true
            $0.resendIntervalSeconds = 0
        }
        try f.activeUser()
        let forgot = ForgotPassword(f.service)
        let recovery = AccountRecovery(f.service)
        for _ in 0..<3 { _ = try f.passwords.verify("alice", "wrong", deviceID: "d1") }
        guard case .sent = try recovery.sendCode("alice", deviceID: "d1") else { Issue.record("no recovery code"); return }
        let recoveryCode = try f.latestOutboxCode()
        #expect(try forgot.verifyCode("alice", code: recoveryCode, deviceID: "d1") == .noCode, "a recovery code resets no password")
        #expect(try recovery.verifyCode("alice", code: recoveryCode, deviceID: "d1") == .unblocked, "and it is still live for its own purpose")

        for _ in 0..<3 { _ = try f.passwords.verify("alice", "wrong", deviceID: "d1") }
        guard case .sent = try forgot.sendCode("alice", deviceID: "d1", proof: try f.proofText()) else { Issue.record("no reset code"); return }
        let resetCode = try f.latestOutboxCode()
        #expect(try recovery.verifyCode("alice", code: resetCode, deviceID: "d1") == .noCode, "a reset code unblocks no one")
        #expect(try f.service.userState("alice", deviceID: "d1")?.blockedStatus == 141)
        guard case .accepted = try forgot.verifyCode("alice", code: resetCode, deviceID: "d1") else {
            Issue.record("the reset code was spent by the other purpose's check")
            return
        }
    }

    /// The host holds the policy and the history at the reset itself, not
    /// only the flow's own check before it: a password that breaks either is
    /// refused, and nothing is spent or changed.
    @Test func theResetRefusesAPasswordThatBreaksThePolicyOrTheHistory() throws {
        let f = try Self.enabled()
        try f.activeUser()
        let forgot = ForgotPassword(f.service)
        _ = try forgot.sendCode("alice", deviceID: "d1", proof: try f.proofText())
        guard case .accepted(let grant) = try forgot.verifyCode("alice", code: try f.latestOutboxCode(), deviceID: "d1") else {
            Issue.record("the code was not accepted")
            return
        }
        for password in ["short", "Tr0ub4dor&Zebra"] {
            #expect(throws: ForgotPassword.UnacceptablePassword.self) {
                try forgot.complete("alice", deviceID: "d1", grant: grant, proof: try f.proofText(), password: password, ldaType: nil)
            }
        }
        #expect(try f.passwords.verify("alice", "Tr0ub4dor&Zebra", deviceID: "d1") == .accepted(expired: false), "the password is as it was")
        guard case .completed = try forgot.complete(
            "alice", deviceID: "d1", grant: grant, proof: try f.proofText(), password: "Another&Passw0rd1", ldaType: nil)
        else {
            Issue.record("the grant was spent by a refused password")
            return
        }
    }
}
