import FlowHostAccounts
import FlowHostStore
import Foundation
import TestSupport
import Testing

@Suite struct AccountsTests {
    /// The test's store, removed with the suite's instance.
    let fixture: ThrowAwayStore
    init() throws { fixture = try ThrowAwayStore(SchemaMigrator(AccountsSchema.register(in:))) }

    private func store() throws -> SQLiteStore { fixture.store }

    @Test func aTakenUserIDIsRefusedAndAnUnknownOneCannotBeUpdated() throws {
        let store = try store()
        let user = UserRecord(userID: "u", activationAttemptsLeft: 1, passwordAttemptsLeft: 1, createdAt: 0)
        try store.write { try $0.insert(user) }
        #expect(throws: StoreError.userExists) { try store.write { try $0.insert(user) } }
        #expect(throws: StoreError.notFound) { try store.write { try $0.update(UserRecord(userID: "v", activationAttemptsLeft: 1, passwordAttemptsLeft: 1, createdAt: 0)) } }
    }

    @Test func aUserAndTheirDevicesReadBackAsWritten() throws {
        let store = try store()
        var user = UserRecord(userID: "u", activationAttemptsLeft: 3, passwordAttemptsLeft: 3, createdAt: 5)
        try store.write { tx in
            try tx.insert(user)
            user.status = .active
            user.blockReason = .passwordAttempts
            user.resendCount = 2
            try tx.update(user)
            try tx.save(DeviceRecord(userID: "u", deviceID: "d2", name: "Phone", ldaType: 1, createdAt: 7, lastAccessAt: 7))
            try tx.save(DeviceRecord(userID: "u", deviceID: "d1", name: "Laptop", createdAt: 6, lastAccessAt: 6))
            // Saving again renames and touches, and keeps when it was registered.
            try tx.save(DeviceRecord(userID: "u", deviceID: "d1", name: "Work laptop", createdAt: 99, lastAccessAt: 9))
        }
        #expect(try store.read { try $0.user("u") } == user)
        let devices = try store.read { try $0.devices(userID: "u") }
        #expect(devices.map(\.deviceID) == ["d1", "d2"])
        #expect(devices[0].name == "Work laptop" && devices[0].createdAt == 6 && devices[0].lastAccessAt == 9)
        #expect(try store.read { try $0.device(userID: "u", deviceID: "d2") }?.ldaType == 1)
    }
}
