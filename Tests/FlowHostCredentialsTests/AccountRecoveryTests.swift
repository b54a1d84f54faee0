import FlowHostCredentials
import FlowHostStore
import Testing

/// `resetBlockedUserAccount`: a code through the delivery channel lifts a
/// password block, and nothing else.
@Suite struct AccountRecoveryTests {
    func blocked(_ f: Fixture) throws {
        try f.activeUser()
        for _ in 0..<3 { _ = try f.passwords.verify("alice", "wrong", deviceID: "d1") }
        #expect(try f.passwords.verify("alice", "Tr0ub4dor&Zebra", deviceID: "d1") == .refused(.blocked(.passwordAttempts)))
    }

    @Test func theDeliveredCodeUnblocksAndRestoresTheAttempts() throws {
        let f = try Fixture()
        try blocked(f)
        let recovery = AccountRecovery(f.service)
        guard case .sent(_, let tries) = try recovery.sendCode("alice", deviceID: "d1") else { Issue.record("no code sent"); return }
        #expect(tries == 3)
        #expect(try recovery.verifyCode("alice", code: "WRONGCODE0", deviceID: "d1") == .wrong(triesLeft: 2))
        #expect(try recovery.verifyCode("alice", code: try f.latestOutboxCode(), deviceID: "d1") == .unblocked)
        #expect(try f.passwords.verify("alice", "Tr0ub4dor&Zebra", deviceID: "d1") == .accepted(expired: false))
        #expect(try recovery.verifyCode("alice", code: try f.latestOutboxCode(), deviceID: "d1") == .refused(.notBlocked), "spent, and nothing to lift")
    }

    @Test func aCodeDiesAfterItsOwnTriesAndTheUserStaysBlocked() throws {
        let f = try Fixture()
        try blocked(f)
        let recovery = AccountRecovery(f.service)
        _ = try recovery.sendCode("alice", deviceID: "d1")
        let code = try f.latestOutboxCode()
        #expect(try recovery.verifyCode("alice", code: "WRONGCODE0", deviceID: "d1") == .wrong(triesLeft: 2))
        #expect(try recovery.verifyCode("alice", code: "WRONGCODE0", deviceID: "d1") == .wrong(triesLeft: 1))
        #expect(try recovery.verifyCode("alice", code: "WRONGCODE0", deviceID: "d1") == .noCode)
        #expect(try recovery.verifyCode("alice", code: code, deviceID: "d1") == .noCode)
        #expect(try f.service.userState("alice", deviceID: "d1")?.blockedStatus == 141)
    }

    @Test func anOperatorsBlockAnUnblockedUserAndAnotherDeviceAreRefused() throws {
        let f = try Fixture()
        try f.activeUser()
        let recovery = AccountRecovery(f.service)
        #expect(try recovery.sendCode("alice", deviceID: "d1") == .refused(.notBlocked))
        for _ in 0..<3 { _ = try f.passwords.verify("alice", "wrong", deviceID: "d1") }
        #expect(try recovery.sendCode("alice", deviceID: "stranger") == .refused(.notRegisteredOnDevice))
        try f.operatorActions.block("alice")
        #expect(try recovery.sendCode("alice", deviceID: "d1") == .refused(.blocked(.admin)))
    }
}
