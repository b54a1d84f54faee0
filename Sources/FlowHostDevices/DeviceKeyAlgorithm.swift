/// A device key's algorithm, fixed when the key is registered and kept with
/// it for life (the store's `device_key.algorithm`, and each receipt's):
/// proofs of possession and data signatures are checked with it, never
/// with one a signature or a receipt claims.
public enum DeviceKeyAlgorithm: String, Sendable, CaseIterable {
    /// Ed25519 (libsodium): the keys the host makes (host custody), and
    /// platforms that can make them. The public key is its 32 bytes.
    case ed25519 = "Ed25519"
    /// ECDSA on P-256 with SHA-256 (libcrypto, loaded on first use): the
    /// keys the Secure Enclave, TPMs and most hardware keystores make. The
    /// public key is the 65-byte uncompressed SEC1 point (`P256`).
    case es256 = "ES256"

    /// What `platform/createDeviceKey` offers (`algorithms`), in the host's
    /// order of preference: Ed25519 first, as it needs no further library
    /// and verifies in a fraction of the time; a platform that makes only
    /// P-256 keys answers ES256.
    public static let offered: [DeviceKeyAlgorithm] = [.ed25519, .es256]

    /// A key's algorithm by its encoding, which no two algorithms share:
    /// 32 bytes are Ed25519, the 65-byte uncompressed point ES256.
    public init?(publicKey: [UInt8]) {
        switch publicKey.count {
        case Ed25519.publicKeyBytes: self = .ed25519
        case P256.publicKeyBytes where publicKey[0] == 0x04: self = .es256
        default: return nil
        }
    }

    /// Whether `signature` is `publicKey`'s over `message`.
    public func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        switch self {
        case .ed25519: Ed25519.verify(signature, of: message, publicKey: publicKey)
        case .es256: P256.verify(signature, of: message, publicKey: publicKey)
        }
    }

    /// The one form a receipt keeps of a signature: Ed25519's 64 bytes as
    /// given; ES256 in strict DER (a platform may answer r‖s). Nil when
    /// it is malformed (it then does not verify either).
    public func canonicalSignature(_ signature: [UInt8]) -> [UInt8]? {
        switch self {
        case .ed25519: signature.count == Ed25519.signatureBytes ? signature : nil
        case .es256: P256.canonicalSignature(signature)
        }
    }
}
