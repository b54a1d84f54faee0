import FlowHostAccounts
import FlowHostStore
import FlowHostVocabulary
import FlowJSON
import Testing
@testable import FlowHostCore

/// `devices.list` and `devices.update` check who asks themselves, whichever
/// flow calls: the user logged in here, and for a deletion a
/// re-authentication in the last minute (a login long ago is not one).
@Suite struct UserDevicesServiceTests {
    let clock = ManualClock()
    let h: ServicesHarness

    init() throws {
        h = try ServicesHarness(clock: clock)
        // Devices that joined long ago: no cooling period is running.
        try h.domains.context.store.write { tx in
            try tx.insert(UserRecord(userID: "alice", activationAttemptsLeft: 3, passwordAttemptsLeft: 3, createdAt: 1000))
            for device in ["d-1", "d-2"] {
                try tx.save(DeviceRecord(userID: "alice", deviceID: device, name: "Phone \(device)", createdAt: 1000, lastAccessAt: 1000))
            }
        }
        h.engine.session.begin(userID: "alice", sessionID: "s-1", feedPosition: nil, factors: ["password"], ldaType: nil, openedBy: "mfa")
        clock.advance(milliseconds: 600_000)
    }

    func update(_ action: String, _ device: String = "d-2", name: String? = nil) -> Result<JSON?, FlowHostError> {
        let params: JSON = ["userID": "alice", "deviceID": "", "devUUID": .string(device), "action": .string(action)]
        if let name { params["devName"] = .string(name) }
        return h.call("devices.update", params)
    }

    func status(_ device: String) throws -> String? {
        try h.domains.context.store.read { try $0.device(userID: "alice", deviceID: device)?.status.rawValue }
    }

    @Test func aDeletionNeedsAFreshReauthenticationAndARenameDoesNot() throws {
        guard case .failure(let refused) = update("delete") else {
            Issue.record("deleted ten minutes after the login, with no step-up")
            return
        }
        #expect(refused.code == .notAllowedNow)
        #expect(try status("d-2") == "ACTIVE")
        #expect(try update("rename", name: "Work laptop").get()?["outcome"]?.stringValue == "changed")
        let token = h.engine.session.issueReauthentication(userID: "alice")
        #expect(try h.call("session.reauthenticate", ["reauthentication": .string(token)]).get()?["reauthenticated"]?.boolValue == true)
        #expect(try update("delete").get()?["outcome"]?.stringValue == "changed")
        #expect(try status("d-2") == "DELETE")
        // The last active device stays, whatever the proof.
        #expect(try update("delete", "d-1").get()?["outcome"]?.stringValue == "lastDevice")
        #expect(try status("d-1") == "ACTIVE")
    }

    @Test func anotherUsersDevicesAreRefusedAtTheHost() {
        let asked: [(String, JSON)] = [
            ("devices.list", ["userID": "bob", "deviceID": ""]),
            ("devices.update", ["userID": "bob", "deviceID": "", "devUUID": "d-1", "action": "rename", "devName": "mine"]),
        ]
        for (service, params) in asked {
            guard case .failure(let error) = h.call(service, params) else {
                Issue.record("\(service) answered for a user not logged in here")
                continue
            }
            #expect(error.code == .notAllowedNow)
        }
        #expect((try? h.call("devices.list", ["userID": "alice", "deviceID": ""]).get()?["device"]?.elements.count) == 2)
    }
}
