import FlowHostAccounts
import FlowHostDevices
import FlowHostStore

/// A logged-in user's own devices (the SDK's `getRegisteredDeviceDetails`
/// and `updateDeviceDetails`): list them, rename one, delete one. Who may
/// ask (that user, logged in on the asking device, re-authenticated before
/// a deletion) is the caller's to check; this domain holds the rules on
/// the devices themselves, each change in one write transaction:
/// - the cooling period: for `deviceCoolingPeriodSeconds` after a device
///   joined the user, no device of theirs changes (status 146), so one who
///   just joined a device cannot at once remove the owner's;
/// - the last active device is never deleted here (the user would be left
///   with no way in): the refusal says so; the operator's `revoke-device` can.
///
/// Used from one thread at a time, like the `CredentialService` it wraps.
public final class UserDevices {
    let credentials: CredentialService

    public init(_ credentials: CredentialService) { self.credentials = credentials }

    public struct Listing: Sendable, Equatable {
        /// The user's devices that are not deleted, oldest first.
        public var devices: [DeviceRecord]
        /// When the cooling period ends (seconds since the epoch); nil when none is running.
        public var coolingPeriodEnd: Int64?
    }

    public enum Change: Sendable, Equatable {
        case rename(String)
        case delete
    }

    public enum Outcome: Sendable, Equatable {
        /// Done; a deletion's revoked key comes with it (a host-custody key's file is the caller's to remove).
        case changed(revokedKey: DeviceKeyRecord?)
        /// The cooling period is running until `until` (146).
        case coolingPeriod(until: Int64)
        /// No such device of this user (or one already deleted).
        case unknownDevice
        /// The user's last active device: deleting it would leave no way in.
        case lastDevice
    }

    public func list(_ userID: String) throws -> Listing {
        let now = credentials.clock()
        return try credentials.store.read { tx in
            guard try tx.user(userID) != nil else { throw StoreError.notFound }
            let all = try tx.devices(userID: userID)
            return Listing(devices: all.filter { $0.status != .deleted }, coolingPeriodEnd: try coolingPeriodEnd(tx, all, now: now))
        }
    }

    public func change(_ userID: String, deviceID: String, _ change: Change) throws -> Outcome {
        let now = credentials.clock()
        return try credentials.write { tx in
            guard try tx.user(userID) != nil else { throw StoreError.notFound }
            let all = try tx.devices(userID: userID)
            guard var device = all.first(where: { $0.deviceID == deviceID }), device.status != .deleted else { return .unknownDevice }
            if let end = try coolingPeriodEnd(tx, all, now: now) {
                try credentials.audit.row(tx, userID, deviceID, "device.change", "cooling-period")
                return .coolingPeriod(until: end)
            }
            switch change {
            case .rename(let name):
                device.name = name
                try tx.save(device)
                try credentials.audit.row(tx, userID, deviceID, "device.rename", "ok")
                return .changed(revokedKey: nil)
            case .delete:
                guard all.contains(where: { $0.deviceID != deviceID && $0.status == .active }) else {
                    try credentials.audit.row(tx, userID, deviceID, "device.delete", "last-device")
                    return .lastDevice
                }
                return .changed(revokedKey: try credentials.revokeDevice(tx, userID: userID, deviceID: deviceID, at: now, action: "device.delete"))
            }
        }
    }

    /// The end of the cooling period the newest device started, if it is
    /// still running. A device joins when its record or its key is made
    /// (activating a deleted device again keeps its record, with a new key);
    /// deleted devices count too: a device that joined and went still joined.
    func coolingPeriodEnd(_ tx: any StoreReader, _ devices: [DeviceRecord], now: Int64) throws -> Int64? {
        let period = credentials.settings.deviceCoolingPeriodSeconds
        guard period > 0 else { return nil }
        var newest: Int64?
        for device in devices {
            let key = try tx.deviceKey(userID: device.userID, deviceID: device.deviceID)
            newest = max(newest ?? device.createdAt, device.createdAt, key?.createdAt ?? device.createdAt)
        }
        guard let newest, newest + period > now else { return nil }
        return newest + period
    }
}
