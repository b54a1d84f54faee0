/// The devices domain's part of a transaction: each registered device's
/// public key, and the single-use challenges and proofs of possession.
public protocol DeviceKeyReader {
    func deviceKey(userID: String, deviceID: String) throws -> DeviceKeyRecord?
}

public protocol DeviceKeyWriter: DeviceKeyReader {
    func save(_ key: DeviceKeyRecord) throws
    /// Marks the key revoked; false when there was none or it was revoked already.
    @discardableResult func revokeDeviceKey(userID: String, deviceID: String, at: Int64) throws -> Bool
    func insert(_ challenge: DeviceChallengeRecord) throws
    /// Uses a challenge once, recording the proof it became (nil when the
    /// answer was wrong): false when it is unknown, used, expired, or not this device's.
    func useDeviceChallenge(nonceHash: String, userID: String, deviceID: String, now: Int64, proofHash: String?, proofExpiresAt: Int64?) throws -> Bool
    /// Spends a proof once: false when it is unknown, spent, expired, or not this device's.
    func spendDeviceProof(proofHash: String, userID: String, deviceID: String, now: Int64) throws -> Bool
    /// Drops challenges and proofs that expired before `before`.
    @discardableResult func pruneDeviceChallenges(before: Int64) throws -> Int
}

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
