/// The devices domain's records: each registered device's public key, and the
/// single-use challenges (and the proofs they become) of possession.

/// A device's key pair, public half: Ed25519, named by its key id.
public struct DeviceKeyRecord: Sendable, Equatable {
    public var userID: String
    public var deviceID: String
    public var keyID: String
    /// The 32-byte Ed25519 public key, hex.
    public var publicKey: String
    /// "host" (a key file beside the host) or "platform" (the client's keystore).
    public var custody: String
    public var createdAt: Int64
    public var revokedAt: Int64?

    public init(userID: String, deviceID: String, keyID: String, publicKey: String, custody: String, createdAt: Int64, revokedAt: Int64? = nil) {
        self.userID = userID
        self.deviceID = deviceID
        self.keyID = keyID
        self.publicKey = publicKey
        self.custody = custody
        self.createdAt = createdAt
        self.revokedAt = revokedAt
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
