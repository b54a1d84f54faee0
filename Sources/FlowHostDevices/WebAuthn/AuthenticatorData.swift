/// Authenticator data (WebAuthn §6.1), parsed strictly: the RP id hash,
/// the flags, the signature counter, and, when AT is set, the attested
/// credential (AAGUID, credential id, COSE public key); when ED is set,
/// an extensions map. Nothing may follow what the flags announce, and a
/// flag set without its data (or data without its flag) is refused.
public struct AuthenticatorData: Equatable, Sendable {
    public struct Flags: OptionSet, Equatable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// User present.
        public static let userPresent = Flags(rawValue: 0x01)
        /// User verified (a biometric or PIN on the authenticator).
        public static let userVerified = Flags(rawValue: 0x04)
        /// Backup eligible: the credential may be synced (a passkey).
        public static let backupEligible = Flags(rawValue: 0x08)
        /// Backed up: it is synced now.
        public static let backedUp = Flags(rawValue: 0x10)
        /// Attested credential data follows.
        public static let attestedCredential = Flags(rawValue: 0x40)
        /// Extensions follow.
        public static let extensions = Flags(rawValue: 0x80)
    }

    public struct AttestedCredential: Equatable, Sendable {
        public let aaguid: [UInt8]
        public let credentialID: [UInt8]
        /// The COSE key as read (`COSEKey.parse` turns it into a device key).
        public let publicKey: CBOR
    }

    public static let maxCredentialIDBytes = 1023
    /// More than any authenticator sends (a COSE key and a few extensions).
    public static let maxBytes = 4096

    public let bytes: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: Flags
    public let signCount: UInt32
    public let attestedCredential: AttestedCredential?

    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw WebAuthnError("authenticator data shorter than 37 bytes") }
        guard bytes.count <= Self.maxBytes else { throw WebAuthnError("authenticator data longer than \(Self.maxBytes) bytes") }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        guard flags.rawValue & 0x22 == 0 else { throw WebAuthnError("reserved flag bits are set") }
        if flags.contains(.backedUp) && !flags.contains(.backupEligible) {
            throw WebAuthnError("the backed-up flag without backup eligibility")
        }
        var offset = 37
        if flags.contains(.attestedCredential) {
            guard bytes.count >= offset + 18 else { throw WebAuthnError("attested credential data cut short") }
            let aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length >= 1, length <= Self.maxCredentialIDBytes else { throw WebAuthnError("a credential id of \(length) bytes (1 to 1023)") }
            guard bytes.count >= offset + length else { throw WebAuthnError("the credential id runs past the data") }
            let credentialID = Array(bytes[offset..<offset + length])
            offset += length
            var reader = CBORReader(bytes, offset: offset)
            let key: CBOR
            do { key = try reader.read() } catch { throw WebAuthnError("the credential public key: \(error)") }
            offset = reader.offset
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, publicKey: key)
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensions) {
            var reader = CBORReader(bytes, offset: offset)
            let extensions: CBOR
            do { extensions = try reader.read() } catch { throw WebAuthnError("the extensions: \(error)") }
            guard case .map = extensions else { throw WebAuthnError("the extensions are not a map") }
            offset = reader.offset
        }
        guard offset == bytes.count else { throw WebAuthnError("\(bytes.count - offset) bytes after the authenticator data") }
    }
}
