/// The devices domain's records: each registered device's public key, and the
/// single-use challenges (and the proofs they become) of possession.

/// A device's key pair, public half, named by its key id, with its algorithm.
public struct DeviceKeyRecord: Sendable, Equatable {
    public var userID: String
    public var deviceID: String
    public var keyID: String
    /// The public key, hex: Ed25519's 32 bytes, or P-256's 65-byte uncompressed point.
    public var publicKey: String
    /// `DeviceKeyAlgorithm`'s name ("Ed25519", "ES256"), for the key's life.
    public var algorithm: String
    /// "host" (a key file beside the host), "platform" (the client's
    /// keystore) or "webauthn" (a WebAuthn credential, `webauthn`).
    public var custody: String
    public var createdAt: Int64
    public var revokedAt: Int64?
    /// A WebAuthn device's credential: its id, counter, BE/BS and AAGUID.
    public var webauthn: WebAuthnCredential?

    public init(userID: String, deviceID: String, keyID: String, publicKey: String, custody: String, createdAt: Int64, revokedAt: Int64? = nil,
        algorithm: String = DeviceKeyAlgorithm.ed25519.rawValue, webauthn: WebAuthnCredential? = nil
    ) {
        self.webauthn = webauthn
        self.algorithm = algorithm
        self.userID = userID
        self.deviceID = deviceID
        self.keyID = keyID
        self.publicKey = publicKey
        self.custody = custody
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// The key's algorithm and public key, when both are well formed and agree.
    public var usableKey: (algorithm: DeviceKeyAlgorithm, publicKey: [UInt8])? {
        guard let algorithm = DeviceKeyAlgorithm(rawValue: algorithm), let bytes = HexBytes.decode(publicKey),
            DeviceKeyAlgorithm(publicKey: bytes) == algorithm
        else { return nil }
        return (algorithm, bytes)
    }
}

/// A challenge sent to a device: only its hash is kept.
public struct DeviceChallengeRecord: Sendable, Equatable {
    public var nonceHash: String
    public var userID: String
    public var deviceID: String
    public var keyID: String
    public var expiresAt: Int64

    public init(nonceHash: String, userID: String, deviceID: String, keyID: String, expiresAt: Int64) {
        self.nonceHash = nonceHash
        self.userID = userID
        self.deviceID = deviceID
        self.keyID = keyID
        self.expiresAt = expiresAt
    }
}
