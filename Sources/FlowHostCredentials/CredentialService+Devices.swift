import FlowHostAccounts
import FlowHostDevices
import FlowHostSessions
import FlowHostStore
import FlowJSON

extension CredentialService {
    /// Ends a registered device inside `tx`: its registration and its key
    /// end, and so do its sessions, on every host (the feed's notice names
    /// them; the host holding one ends it at once). The operator's
    /// `revoke-device` and the user's own deletion are this one step; the
    /// device's push token is removed in it.
    /// Returns the key it revoked, if any (a host-custody key's file is the
    /// caller's to remove: it lives beside a host, not in the store).
    func revokeDevice(_ tx: any StoreWriter, userID: String, deviceID: String, at now: Int64, action: String) throws -> DeviceKeyRecord? {
        guard var device = try tx.device(userID: userID, deviceID: deviceID) else { throw StoreError.notFound }
        device.status = .deleted
        try tx.save(device)
        let key = try tx.deviceKey(userID: userID, deviceID: deviceID)
        try tx.revokeDeviceKey(userID: userID, deviceID: deviceID, at: now)
        // A revoked device is never pushed again: its token goes with it.
        try tx.removePushToken(userID: userID, deviceID: deviceID)
        let open = try tx.openSessions(userID: userID).filter { $0.deviceID == deviceID }.map(\.sessionID)
        let ended = try tx.endSessions(userID: userID, deviceID: deviceID, at: now, reason: "device-revoked")
        try audit.row(tx, userID, deviceID, action, "ok", ["sessions": .int(ended)])
        if !open.isEmpty {
            let notice: JSON = ["userID": .string(userID), "sessionIDs": .array(open.map(JSON.string)), "reason": "device-revoked"]
            try tx.appendFeedEvent(topic: SessionLedger.endedTopic, payload: notice.serialized(), at: now)
            feedAppended = true
        }
        return key
    }
}
