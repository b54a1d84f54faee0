import FlowHostAudit
import FlowHostStore
import FlowJSON

/// The signature counter of a WebAuthn credential (WebAuthn §6.1.1): an
/// authenticator that keeps one counts up at every assertion, so a counter
/// that does not go up, when either the stored or the new one is not zero,
/// means two authenticators hold the same key: a clone. The assertion is
/// refused and the credential revoked, in the same transaction: which of
/// the two is the original cannot be told, and a cloned key must not
/// prove anything again; the user activates the device again. (An
/// authenticator that keeps no counter says 0 every time, and is taken.)
public enum WebAuthnCounter {
    /// Keeps the assertion's counter and backup state on `key`; false (and
    /// the key revoked, audited as `clone-suspected`) when the counter went backwards.
    public static func advance(
        _ tx: any StoreWriter, _ key: DeviceKeyRecord, _ assertion: WebAuthnRelyingParty.Assertion, audit: AuditLog, now: Int64
    ) throws -> Bool {
        let stored = key.webauthn?.signCount ?? 0
        let new = assertion.authenticatorData.signCount
        if wentBackwards(stored: stored, asserted: new) {
            try tx.revokeDeviceKey(userID: key.userID, deviceID: key.deviceID, at: now)
            try audit.row(
                tx, key.userID, key.deviceID, "device.key", "clone-suspected",
                ["keyID": .string(key.keyID), "storedCount": .int(Int(stored)), "assertedCount": .int(Int(new))])
            return false
        }
        _ = try tx.updateWebAuthnCredential(
            userID: key.userID, deviceID: key.deviceID, keyID: key.keyID, signCount: new,
            backedUp: assertion.authenticatorData.flags.contains(.backedUp))
        return true
    }

    /// Whether a counter `asserted` after `stored` shows a clone.
    public static func wentBackwards(stored: UInt32, asserted: UInt32) -> Bool { (stored != 0 || asserted != 0) && asserted <= stored }
}
