import ArgumentParser
import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostNotifications
import FlowHostPOSIX
import FlowHostServices
import FlowHostStore
import FlowJSON
import Glibc
import JSONRPC

/// `flowhost admin`: a user's devices, and revoking one.
extension Admin {
    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a user's devices: the fields getRegisteredDeviceDetails gives the user, their keys, and the cooling period's end.")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        func run() throws {
            try adminRun {
                let (_, devices, _) = try options.userAndDevices(userID)
                let keys = try options.store().read { tx in
                    try devices.map { try tx.deviceKey(userID: userID, deviceID: $0.deviceID) }
                }
                var pushTokens: [String: String] = [:]
                try options.store().read { tx in
                    for device in devices { pushTokens[device.deviceID] = try tx.pushToken(userID: userID, deviceID: device.deviceID) }
                }
                // The cooling period the user sees (deleted devices are not listed to them, but count).
                let coolingEnd = try UserDevices(options.domains().credentials).list(userID).coolingPeriodEnd ?? 0
                let value = JSON.array(
                    zip(devices, keys).map { device, key in
                        // The user's own view of the device (no device is the operator's current one)…
                        let entry = RegisteredDeviceShape.item(device, current: nil)
                        entry["deviceManagementCoolingPeriodEndTimestamp"] = .int(Int(coolingEnd))
                        // …and what only the operator sees: the LDA type and the key's public half (a private key is never shown).
                        entry["ldaType"] = .optional(device.ldaType, JSON.int)
                        entry["keyID"] = .optional(key?.keyID, JSON.string)
                        entry["keyCustody"] = .optional(key?.custody, JSON.string)
                        entry["keyAlgorithm"] = .optional(key?.algorithm, JSON.string)
                        entry["keyCreatedTs"] = .optional(key.map { isoTime($0.createdAt) }, JSON.string)
                        entry["keyRevokedTs"] = .optional(key?.revokedAt.map(isoTime), JSON.string)
                        // Whether setDeviceToken gave one: its fingerprint, never the token.
                        entry["pushToken"] = .optional(pushTokens[device.deviceID].map(PushTokens.fingerprint), JSON.string)
                        // A WebAuthn device's credential: what the authenticator said of it (never trusted beyond that).
                        if let credential = key?.webauthn {
                            entry["webauthn"] = [
                                "credentialID": .string(Base64.encodeURLSafe(credential.credentialID)), "signCount": .int(Int(credential.signCount)),
                                "backupEligible": .bool(credential.backupEligible), "backedUp": .bool(credential.backedUp),
                                "aaguid": .string(credential.aaguidText),
                            ]
                        }
                        return entry
                    })
                options.emit(value) {
                    TerminalText(lines: zip(devices, keys).map { device, key in
                        "\(device.deviceID)  \(device.name)  \(device.status.rawValue)  lda=\(device.ldaType.map(String.init) ?? "-")  key=\(key?.keyID ?? "none")"
                    })
                }
            }
        }
    }

    struct RevokeDevice: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-device", abstract: "Revoke a user's device: it can neither log in nor sign until activated again.")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String
        @Argument var deviceID: String
        func run() throws {
            try adminRun {
                let key = try options.operatorActions().revokeDevice(userID, deviceID: deviceID)
                // A host-custody key's secret half is a file beside the host: a revoked key must not stay on disk.
                var removed = false
                if let key, key.custody == "host" { removed = try options.storage.keyring().remove(key.keyID) }
                let report: JSON = [
                    "userID": .string(userID), "devUUID": .string(deviceID), "revoked": true, "keyFileRemoved": .bool(removed),
                ]
                options.emit(report) {
                    "\(userID): device \(deviceID) revoked" + (removed ? "; its key file \(key!.keyID).key was removed" : "" as TerminalText)
                }
            }
        }
    }
}
