import FlowHostStore
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
}
