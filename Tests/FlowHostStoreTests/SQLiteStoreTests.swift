@testable import FlowHostStore
import Foundation
import Testing

@Suite struct SQLiteStoreTests {
    private func temporaryPath() -> String {
        NSTemporaryDirectory() + "flowhost-store-\(UUID().uuidString)/nested/store.sqlite"
    }

    @Test func createdPrivately() throws {
        let path = temporaryPath()
        _ = try SQLiteStore(path: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
    }

    @Test func failedTransactionLeavesNothing() throws {
        let store = try SQLiteStore(path: temporaryPath())
        #expect(throws: StoreError.self) {
            try store.write { tx in
                try tx.insert(UserRecord(userID: "u", activationAttemptsLeft: 1, passwordAttemptsLeft: 1, createdAt: 0))
                throw StoreError("abort")
            }
        }
        #expect(try store.read { try $0.user("u") } == nil)
    }

    @Test func duplicateUserIsRefused() throws {
        let store = try SQLiteStore(path: temporaryPath())
        let user = UserRecord(userID: "u", activationAttemptsLeft: 1, passwordAttemptsLeft: 1, createdAt: 0)
        try store.write { try $0.insert(user) }
        #expect(throws: StoreError.userExists) { try store.write { try $0.insert(user) } }
    }

    @Test func passwordHistoryIsPruned() throws {
        let store = try SQLiteStore(path: temporaryPath())
        try store.write { tx in
            try tx.insert(UserRecord(userID: "u", activationAttemptsLeft: 1, passwordAttemptsLeft: 1, createdAt: 0))
            for index in 0..<8 { try tx.insert(PasswordRecord(userID: "u", hash: "h\(index)", createdAt: Int64(index))) }
            try tx.prunePasswords(userID: "u", keep: 5)
        }
        #expect(try store.read { try $0.passwords(userID: "u", limit: 100) }.map(\.hash) == ["h7", "h6", "h5", "h4", "h3"])
    }

    @Test func twoConnectionsCountWithoutLosingUpdates() throws {
        let path = temporaryPath()
        let first = try SQLiteStore(path: path)
        let second = try SQLiteStore(path: path)
        try first.write { try $0.insert(UserRecord(userID: "u", activationAttemptsLeft: 400, passwordAttemptsLeft: 1, createdAt: 0)) }
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let store = index == 0 ? first : second
            for _ in 0..<100 {
                try! store.write { tx in
                    var user = try tx.user("u")!
                    user.activationAttemptsLeft -= 1
                    try tx.update(user)
                }
            }
        }
        #expect(try first.read { try $0.user("u") }?.activationAttemptsLeft == 200)
    }

    /// The database itself refuses to change or remove audit rows and to
    /// lower a count: tried with SQL on a second connection, past the Swift API.
    @Test func auditIsAppendOnlyInTheDatabase() throws {
        let path = temporaryPath()
        let store = try SQLiteStore(path: path)
        try store.write { tx in
            try tx.append(AuditEntry(at: 1, userID: "u", deviceID: nil, action: "user.create", outcome: "ok"))
            try tx.count(action: "login.user", outcome: "unknown", userID: nil, at: 7200)
            try tx.count(action: "login.user", outcome: "unknown", userID: nil, at: 7201)
        }
        // A recent hour's count (an hour older than 90 days may be pruned: retention).
        let recentHour = (Int64(Date().timeIntervalSince1970) / 3600 - 24) * 3600
        try store.write { tx in try tx.count(action: "login.user", outcome: "unknown", userID: nil, at: recentHour) }
        let raw = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
        for statement in [
            "UPDATE audit SET outcome = 'forged'", "DELETE FROM audit", "DELETE FROM audit_count WHERE hour = \(recentHour)",
            "UPDATE audit_count SET count = 0", "UPDATE audit_count SET action = 'other'",
        ] {
            #expect(throws: SQLiteError.self, "\(statement)") { try raw.execute(statement) }
        }
        try raw.execute("UPDATE audit_count SET count = count + 1")  // counting up is what counts do
        #expect(try store.read { try $0.auditEntries(userID: nil, limit: 10) }.map(\.outcome) == ["ok"])
        #expect(try store.read { try $0.auditCounts(userID: nil, limit: 10) }.map(\.count) == [2, 3])
        // The 1970 hour is past any retention: the database lets it go, and only it.
        #expect(try store.write { try $0.pruneAuditCounts(before: recentHour - 91 * 86_400) } == 1)
        #expect(try store.read { try $0.auditCounts(userID: nil, limit: 10) }.map(\.count) == [2])
    }

    @Test func aLockedDatabaseIsRetriedThenReportedAsBusy() throws {
        let path = temporaryPath()
        let store = try SQLiteStore(path: path, busyTimeoutSeconds: 0.05)
        let holder = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 0)
        try holder.execute("BEGIN IMMEDIATE")
        let started = DispatchTime.now()
        #expect { try store.write { try $0.insert(UserRecord(userID: "u", activationAttemptsLeft: 1, passwordAttemptsLeft: 1, createdAt: 0)) } }
            throws: { ($0 as? SQLiteError)?.isBusy == true }
        let waited = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        #expect(waited >= 0.15, "three runs of 50 ms each, with pauses")
        try holder.execute("COMMIT")
        // Freed after the first run gave up (busy timeout 200 ms, freed at
        // 250 ms, on a thread of its own so a busy test runner cannot delay
        // it much): a retry goes through.
        let retrying = try SQLiteStore(path: path, busyTimeoutSeconds: 0.2)
        try holder.execute("BEGIN IMMEDIATE")
        // nonisolated(unsafe): the other thread is the only user of the connection from here on.
        nonisolated(unsafe) let releasing = holder
        Thread.detachNewThread {
            usleep(250_000)
            try? releasing.execute("COMMIT")
        }
        try retrying.write { try $0.insert(UserRecord(userID: "u", activationAttemptsLeft: 1, passwordAttemptsLeft: 1, createdAt: 0)) }
        #expect(try store.read { try $0.user("u") } != nil)
    }
}
