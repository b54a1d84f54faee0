import FlowHostAccounts
import FlowHostCore
import FlowHostCredentials
import FlowHostDevices
import FlowHostNotifications
import FlowHostServiceTypes
import FlowHostVocabulary
import FlowJSON

/// The logged-in user's own devices, offered to flows: `devices.list`,
/// `devices.update` (rename, delete). Each needs the user logged in on
/// this host, on the asking device: a flow cannot list or change another
/// user's devices. A deletion also needs a re-authentication within
/// `deleteFreshSeconds` (the flow's step-up just before it).
enum UserDevicesModule {
    /// How recent the re-authentication before a deletion must be.
    static let deleteFreshSeconds: Int64 = 60

    static func register(_ devices: UserDevices, keyring: DeviceKeyring?, in engine: HostEngine) {
        // The session reaches the name table these services live in: held strongly, neither would be freed.
        unowned let hostSession = engine.session
        let logger = engine.logger
        func requireLoggedIn(_ userID: String, _ deviceID: String, within seconds: Int64?) throws(FlowHostError) {
            guard hostSession.recentlyProved(userID: userID, deviceID: deviceID, within: seconds) else {
                let fresh = seconds.map { " and re-authenticated in the last \($0) seconds" } ?? ""
                throw FlowHostError(.notAllowedNow, message: "a user's devices are theirs alone: that user logged in here\(fresh)")
            }
        }

        offer(engine, Services.DevicesList.self) { _, call in
            try requireLoggedIn(call.userID, call.deviceID, within: nil)
            let listing = try devices.list(call.userID)
            return Services.DevicesListOutcome(
                device: .array(listing.devices.map { RegisteredDeviceShape.item($0, current: call.deviceID) }),
                deviceManagementCoolingPeriodEndTimestamp: Int(listing.coolingPeriodEnd ?? 0))
        }

        offer(engine, Services.DevicesUpdate.self) { _, call in
            let change: UserDevices.Change
            switch call.action {
            case "delete": change = .delete
            default:
                guard let name = call.devName?.trimmingSpacesAround, !name.isEmpty else {
                    throw FlowHostError.invalidParams(field: "devName", reason: "a rename needs the new name")
                }
                change = .rename(name)
            }
            try requireLoggedIn(call.userID, call.deviceID, within: change == .delete ? deleteFreshSeconds : nil)
            switch try devices.change(call.userID, deviceID: call.devUUID, change) {
            case .changed(let key):
                // A host-custody key's secret half is a file beside the host that made it: gone with the device, where it is here.
                if let key, key.custody == "host", let keyring {
                    do { _ = try keyring.remove(key.keyID) } catch { logger.error("removing a deleted device's key file failed: \(error)") }
                }
                return .changed
            case .coolingPeriod(let until): return .coolingPeriod(until: Int(until))
            case .unknownDevice: return .unknownDevice
            case .lastDevice: return .lastDevice
            }
        }
    }
}

/// One registered device in the SDK's shape: what `devices.list` gives the
/// user and `flowhost admin devices` shows the operator.
public enum RegisteredDeviceShape {
    public static func item(_ device: DeviceRecord, current: String?) -> JSON {
        [
            "devUUID": .string(device.deviceID), "devName": .string(device.name), "status": .string(device.status.rawValue),
            "lastAccessedTs": .string(NotificationShapes.timestamp(device.lastAccessAt)), "lastAccessedTsEpoch": .int(Int(device.lastAccessAt)),
            "createdTs": .string(NotificationShapes.timestamp(device.createdAt)), "createdTsEpoch": .int(Int(device.createdAt)),
            "appUuid": "", "currentDevice": .bool(device.deviceID == current),
            // Every FlowHost device is bound for good (RDNADeviceBinding PERMANENT).
            "devBind": 0,
        ]
    }
}

extension String {
    fileprivate var trimmingSpacesAround: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}
