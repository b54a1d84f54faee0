import FlowHostPOSIX

/// A WebAuthn credential as registered with a device (spec §14): its id,
/// its public key (kept in `DeviceKeyRecord` as any device key is), and
/// what the authenticator said of it: the signature counter, backup
/// eligibility and state (BE/BS), and its AAGUID (from the authenticator
/// data; an attestation statement is never trusted).
public struct WebAuthnCredential: Sendable, Equatable {
    public var credentialID: [UInt8]
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    /// 16 bytes; all zero when the authenticator (or the browser) does not say.
    public var aaguid: [UInt8]

    public init(credentialID: [UInt8], signCount: UInt32, backupEligible: Bool, backedUp: Bool, aaguid: [UInt8]) {
        self.credentialID = credentialID
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.aaguid = aaguid
    }

    /// The AAGUID as a UUID's text (8-4-4-4-12 hex).
    public var aaguidText: String {
        let hex = Hex.encode(aaguid)
        guard hex.count == 32 else { return hex }
        let digits = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }.joined(separator: "-")
    }

    /// The key id a WebAuthn device's key goes by: the first 16 bytes of
    /// SHA-256 of the credential id, hex (a credential id may be 1023 bytes).
    public static func keyID(of credentialID: [UInt8]) -> String { Hex.encode(Array(SHA256.digest(credentialID).prefix(16))) }
}
