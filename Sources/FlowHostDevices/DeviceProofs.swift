import CSodium
import FlowHostAccounts
import FlowHostAudit
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// Possession of a device's key, proven inside the host: a fresh nonce,
/// signed by the device's key (in the host's keyring, or by the client's
/// platform), verified with the public key registered at activation. A
/// verified challenge becomes a proof (single use, five minutes) that a
/// login step spends in its own transaction.
///
/// A key the client's platform holds is asked over the protocol: its nonce
/// travels to this host's own client and back, so it lives in this
/// process's memory (single use, a minute) between the two steps. A key
/// this host holds (host custody) is proven in one call. Either way the
/// proof is kept in memory, spent by the login of this same process, and
/// nothing is written unless a proof is refused (the refusal is audited):
/// a login makes one commit, its own. A WebAuthn credential's proof writes
/// its signature counter too (`finishWebAuthn`, in DeviceProofs+WebAuthn.swift).
///
/// Used on one thread at a time (the host's loop, or an admin command).
public final class DeviceProofs {
    let store: any FlowStore
    let audit: AuditLog
    let clock: () -> Int64
    public static let challengeSeconds: Int64 = 60
    public static let proofSeconds: Int64 = 300

    /// A proof, by the hash of the proof: good only while `keyID` is the
    /// device's key (`spend` reads it again).
    struct KeptProof {
        let userID: String
        let deviceID: String
        let keyID: String
        let expiresAt: Int64
    }

    /// A challenge sent to the client's platform, by the hash of its nonce,
    /// with the key it was read for: the answer is checked against that key,
    /// and the login that spends the proof reads the key again in its own
    /// transaction (`spend`), so a revocation meanwhile still counts.
    struct PendingChallenge {
        let userID: String
        let deviceID: String
        let key: DeviceKeyRecord
        let expiresAt: Int64
        var keyID: String { key.keyID }
    }

    /// Proofs not yet spent or expired, and challenges not yet answered or
    /// expired. Touched only on the thread that uses this object (see above).
    private var keptProofs: [String: KeptProof] = [:]
    var pendingChallenges: [String: PendingChallenge] = [:]

    /// A WebAuthn credential the host checked (`holdNewCredential`), waiting
    /// for the activation that registers it, by key id.
    struct NewCredential {
        let userID: String
        let deviceID: String
        let registration: WebAuthnRelyingParty.Registration
        let expiresAt: Int64
    }

    /// Checked credentials not yet registered: a flow passes a key id and a
    /// public key on to the activation, and only a credential this host
    /// checked itself is registered as a WebAuthn device's. Touched only on
    /// the thread that uses this object.
    var newCredentials: [String: NewCredential] = [:]

    public init(_ context: DomainContext) {
        store = context.store
        audit = context.audit
        clock = context.clock
    }

    /// What a device signs: domain-separated, naming the user, the device,
    /// the nonce and the reason, so a signature answers one question only.
    public static func challengeMessage(userID: String, deviceID: String, nonce: [UInt8], reason: String) -> [UInt8] {
        Array("flowhost-device-proof-v1\n\(userID)\n\(deviceID)\n\(Hex.encode(nonce))\n\(reason)".utf8)
    }

    public enum Start {
        /// Sign `message` with the key `key.keyID`.
        case challenge(nonce: [UInt8], message: [UInt8], key: DeviceKeyRecord)
        /// Registered before device keys existed: no key to prove.
        case unbound
        /// Not registered here, revoked, or blocked.
        case refused(reason: String)
    }

    /// Issues a challenge for the user's key on this device.
    public func begin(userID: String, deviceID: String, reason: String) throws -> Start {
        let now = clock()
        let key: DeviceKeyRecord
        switch try store.read({ tx in try registeredKey(tx, userID: userID, deviceID: deviceID) }) {
        case .refused(let why, let knownUser):
            _ = try refuse(why, auditedFor: knownUser)
            return .refused(reason: why)
        case .unbound: return .unbound
        case .key(let registered): key = registered
        }
        let nonce = SecureRandom.bytes(32)
        // Expired ones go when any are left (a client that never answered).
        if !pendingChallenges.isEmpty { pendingChallenges = pendingChallenges.filter { $0.value.expiresAt > now } }
        pendingChallenges[Self.hash(nonce)] = PendingChallenge(
            userID: key.userID, deviceID: key.deviceID, key: key, expiresAt: now + Self.challengeSeconds)
        return .challenge(nonce: nonce, message: Self.challengeMessage(userID: userID, deviceID: deviceID, nonce: nonce, reason: reason), key: key)
    }

    public enum Finish: Equatable {
        case proven(proof: String)
        case refused(reason: String)
    }

    /// Checks a signature over a challenge with the key the challenge was
    /// issued for; the challenge is used either way. Nothing is read: a
    /// device revoked while its platform signed has its proof refused where
    /// it is spent (`spend`).
    public func finish(userID: String, deviceID: String, nonce: [UInt8], message: [UInt8], signature: [UInt8]) throws -> Finish {
        let now = clock()
        guard let challenge = pendingChallenges.removeValue(forKey: Self.hash(nonce)), challenge.userID == userID, challenge.deviceID == deviceID,
            challenge.expiresAt > now
        else { return try refuse("stale-challenge", auditedFor: userID) }
        guard let (algorithm, publicKey) = challenge.key.usableKey else { return try refuse("not-registered", auditedFor: userID) }
        guard algorithm.verify(signature, of: message, publicKey: publicKey) else { return try refuse("bad-signature", auditedFor: userID) }
        return .proven(proof: keepProof(userID: userID, deviceID: deviceID, keyID: challenge.keyID, now: now))
    }

    /// The whole proof at once, for a key this host holds (host custody):
    /// the registered public key read, `holdsSecretKey` (the keyring) asked
    /// whether this host holds its secret half, and a proof kept in memory
    /// for this process's login to spend. A refusal is audited, as in `finish`.
    /// Nil when the device has no key held by the host: the two steps then apply.
    ///
    /// No nonce is signed: it would be made, signed and checked inside this
    /// one call of this one process, so it could show nothing beyond what
    /// making the public key again from the held seed shows (spec §14), at
    /// a quarter of the cost.
    public func proveHeld(userID: String, deviceID: String, holdsSecretKey: (DeviceKeyRecord, [UInt8]) -> Bool) throws -> Finish? {
        let now = clock()
        let key: DeviceKeyRecord
        switch try store.read({ tx in try registeredKey(tx, userID: userID, deviceID: deviceID) }) {
        case .refused(let why, let knownUser): return try refuse(why, auditedFor: knownUser)
        case .unbound: return nil
        case .key(let registered): key = registered
        }
        guard key.custody == "host" else { return nil }
        // The keyring holds Ed25519 keys only.
        guard let (algorithm, publicKey) = key.usableKey, algorithm == .ed25519 else { return try refuse("not-registered", auditedFor: userID) }
        guard holdsSecretKey(key, publicKey) else { return try refuse("bad-signature", auditedFor: userID) }
        return .proven(proof: keepProof(userID: userID, deviceID: deviceID, keyID: key.keyID, now: now))
    }

    /// A new proof, kept in memory (its hash) for this process's login to spend.
    func keepProof(userID: String, deviceID: String, keyID: String, now: Int64) -> String {
        // Expired ones go when any are left (a handful at most: proofs are
        // spent within seconds); usually the last was spent and none are.
        if !keptProofs.isEmpty { keptProofs = keptProofs.filter { $0.value.expiresAt > now } }
        let proof = RandomHex.make(bytes: 32)
        keptProofs[Self.hash(Array(proof.utf8))] = KeptProof(userID: userID, deviceID: deviceID, keyID: keyID, expiresAt: now + Self.proofSeconds)
        return proof
    }

    /// A refused proof, counted in the audit (under the user when the user exists).
    func refuse(_ why: String, auditedFor userID: String?) throws -> Finish {
        try store.write(durability: .relaxed) { tx in try audit.count(tx, userID, "device.prove", why) }
        return .refused(reason: why)
    }

    private enum RegisteredKey {
        case key(DeviceKeyRecord)
        case unbound
        /// Why, and the user to count the refusal under (nil: no such user).
        case refused(String, auditUserID: String?)
    }

    /// The device's key, if the device is registered and active here and its
    /// key is not revoked. The caller counts a refusal. A read of its own:
    /// its last statement carries the read's COMMIT.
    private func registeredKey(_ tx: any StoreReader, userID: String, deviceID: String) throws -> RegisteredKey {
        // Whichever the answer needs, in one round trip with the COMMIT.
        try tx.lastStatement {
            try tx.prefetch([.device(userID: userID, deviceID: deviceID), .deviceKey(userID: userID, deviceID: deviceID), .user(userID)])
        }
        guard try tx.device(userID: userID, deviceID: deviceID)?.status == .active else {
            return .refused("not-registered", auditUserID: try tx.user(userID)?.userID)
        }
        guard let key = try tx.deviceKey(userID: userID, deviceID: deviceID) else { return .unbound }
        if key.revokedAt != nil { return .refused("revoked", auditUserID: userID) }
        return .key(key)
    }

    /// A proof spent by a login step, inside its transaction: good only
    /// while the key it proved is the device's and not revoked, read here, in
    /// the transaction that relies on it. Given back if the transaction does
    /// not commit.
    public func spend(_ tx: any StoreWriter, proof: String, userID: String, deviceID: String) throws -> Bool {
        let hash = Self.hash(Array(proof.utf8))
        guard let held = keptProofs[hash], held.userID == userID, held.deviceID == deviceID, held.expiresAt > clock() else { return false }
        keptProofs[hash] = nil
        // Given back if the login's transaction does not commit (the
        // store runs this before running a busy body again, too).
        tx.onRollback { [self] in keptProofs[hash] = held }
        guard let key = try tx.deviceKey(userID: userID, deviceID: deviceID), key.revokedAt == nil, key.keyID == held.keyID else { return false }
        return true
    }

    /// Registers a device's public key, inside the activation's (or the binding login's) transaction.
    /// Its algorithm follows from its encoding (`DeviceKeyAlgorithm(publicKey:)`), checked by the caller.
    /// A WebAuthn key must be a credential this host checked for this user and device (`holdNewCredential`).
    public func register(_ tx: any StoreWriter, userID: String, deviceID: String, keyID: String, publicKey: [UInt8], custody: String) throws {
        guard let algorithm = DeviceKeyAlgorithm(publicKey: publicKey) else { throw DeviceError("a device key of no known algorithm") }
        var credential: WebAuthnCredential?
        if custody == "webauthn" {
            guard let held = newCredentials[keyID], held.userID == userID, held.deviceID == deviceID, held.expiresAt > clock(),
                held.registration.publicKey == publicKey
            else { throw DeviceError("a WebAuthn key this host did not check for this device") }
            // Another device's (or user's) credential is never registered again.
            guard try !tx.webauthnCredentialInUse(held.registration.credential.credentialID) else {
                throw DeviceError("a WebAuthn credential registered to another device")
            }
            newCredentials[keyID] = nil
            tx.onRollback { [self] in newCredentials[keyID] = held }
            credential = held.registration.credential
        }
        try tx.save(
            DeviceKeyRecord(
                userID: userID, deviceID: deviceID, keyID: keyID, publicKey: Hex.encode(publicKey), custody: custody, createdAt: clock(),
                algorithm: algorithm.rawValue, webauthn: credential))
        let details: JSON = ["keyID": .string(keyID), "custody": .string(custody)]
        // Ed25519's audit row stays as it was; another algorithm is named.
        if algorithm != .ed25519 || credential != nil { details["algorithm"] = .string(algorithm.rawValue) }
        if let credential {
            details["aaguid"] = .string(credential.aaguidText)
            details["backupEligible"] = .bool(credential.backupEligible)
            details["backedUp"] = .bool(credential.backedUp)
        }
        try audit.row(tx, userID, deviceID, "device.key", "registered", details)
    }

    static func hash(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&digest, digest.count, bytes, UInt64(bytes.count), nil, 0)
        return Hex.encode(digest)
    }
}
