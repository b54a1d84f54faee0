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
/// A key the client's platform holds is asked over the protocol, so its
/// nonce lives in the store (single use, a minute) between the two steps.
/// A key this host holds (host custody) is proven in one call: its nonce
/// never leaves the process, and its proof is kept in memory, spent by the
/// login of this same process; nothing is written unless it is refused
/// (the refusal is audited). A login thus makes one commit, not two.
///
/// Used on one thread at a time (the host's loop, or an admin command).
public final class DeviceProofs {
    let store: any FlowStore
    let audit: AuditLog
    let clock: () -> Int64
    public static let challengeSeconds: Int64 = 60
    public static let proofSeconds: Int64 = 300

    /// A proof of a key this host holds, by the hash of the proof.
    struct HeldProof {
        let userID: String
        let deviceID: String
        let expiresAt: Int64
    }

    /// Proofs made by `proveHeld`, not yet spent or expired. Touched only on
    /// the thread that uses this object (see above).
    private var heldProofs: [String: HeldProof] = [:]

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
    private var newCredentials: [String: NewCredential] = [:]

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
        let nonce = SecureRandom.bytes(32)
        return try store.write(durability: .relaxed) { tx in
            let key: DeviceKeyRecord
            switch try registeredKey(tx, userID: userID, deviceID: deviceID) {
            case .refused(let why, let knownUser):
                try audit.count(tx, knownUser, "device.prove", why)
                return .refused(reason: why)
            case .unbound: return .unbound
            case .key(let registered): key = registered
            }
            try issue(tx, nonce: nonce, key: key, now: now)
            return .challenge(
                nonce: nonce, message: Self.challengeMessage(userID: userID, deviceID: deviceID, nonce: nonce, reason: reason), key: key)
        }
    }

    public enum Finish: Equatable {
        case proven(proof: String)
        case refused(reason: String)
    }

    /// Checks a signature over a challenge; the challenge is used either way.
    public func finish(userID: String, deviceID: String, nonce: [UInt8], message: [UInt8], signature: [UInt8]) throws -> Finish {
        let now = clock()
        let proof = RandomHex.make(bytes: 32)
        // Not synced: after a power loss the challenge may look unused again,
        // but it expires within a minute and the proof it became is lost
        // with it; the login that spends a proof is what counts, and it is
        // synced whenever it fails.
        return try store.write(durability: .relaxed) { tx in
            guard let key = try tx.deviceKey(userID: userID, deviceID: deviceID), key.revokedAt == nil,
                try tx.device(userID: userID, deviceID: deviceID)?.status == .active,
                let (algorithm, publicKey) = key.usableKey
            else {
                try audit.count(tx, userID, "device.prove", "not-registered")
                return .refused(reason: "not-registered")
            }
            return try answer(
                tx, nonce: nonce, message: message, signature: signature, publicKey: publicKey, algorithm: algorithm, proof: proof, now: now,
                userID: userID, deviceID: deviceID)
        }
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
        // Expired ones go when any are left (a handful at most: proofs are
        // spent within seconds); usually the last was spent and none are.
        if !heldProofs.isEmpty { heldProofs = heldProofs.filter { $0.value.expiresAt > now } }
        let proof = RandomHex.make(bytes: 32)
        heldProofs[Self.hash(Array(proof.utf8))] = HeldProof(userID: userID, deviceID: deviceID, expiresAt: now + Self.proofSeconds)
        return .proven(proof: proof)
    }

    /// A refused proof, counted in the audit (under the user when the user exists).
    private func refuse(_ why: String, auditedFor userID: String?) throws -> Finish {
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
    /// key is not revoked. The caller counts a refusal.
    private func registeredKey(_ tx: any StoreReader, userID: String, deviceID: String) throws -> RegisteredKey {
        guard try tx.device(userID: userID, deviceID: deviceID)?.status == .active else {
            return .refused("not-registered", auditUserID: try tx.user(userID)?.userID)
        }
        guard let key = try tx.deviceKey(userID: userID, deviceID: deviceID) else { return .unbound }
        if key.revokedAt != nil { return .refused("revoked", auditUserID: userID) }
        return .key(key)
    }

    /// Stores a challenge (single use, a minute) for `key`.
    private func issue(_ tx: any StoreWriter, nonce: [UInt8], key: DeviceKeyRecord, now: Int64) throws {
        // Pruning now and then is enough: the rows are small, and expired ones never match.
        if nonce[0] == 0 { try tx.pruneDeviceChallenges(before: now - Self.proofSeconds) }
        try tx.insert(
            DeviceChallengeRecord(
                nonceHash: Self.hash(nonce), userID: key.userID, deviceID: key.deviceID, keyID: key.keyID, expiresAt: now + Self.challengeSeconds))
    }

    /// Uses the challenge, with the proof it becomes when the signature
    /// checks out; refusals are counted.
    private func answer(
        _ tx: any StoreWriter, nonce: [UInt8], message: [UInt8], signature: [UInt8], publicKey: [UInt8], algorithm: DeviceKeyAlgorithm,
        proof: String, now: Int64, userID: String, deviceID: String
    ) throws -> Finish {
        let valid = algorithm.verify(signature, of: message, publicKey: publicKey)
        guard
            try tx.useDeviceChallenge(
                nonceHash: Self.hash(nonce), userID: userID, deviceID: deviceID, now: now, proofHash: valid ? Self.hash(Array(proof.utf8)) : nil,
                proofExpiresAt: valid ? now + Self.proofSeconds : nil)
        else {
            try audit.count(tx, userID, "device.prove", "stale-challenge")
            return .refused(reason: "stale-challenge")
        }
        guard valid else {
            try audit.count(tx, userID, "device.prove", "bad-signature")
            return .refused(reason: "bad-signature")
        }
        return .proven(proof: proof)
    }

    /// A proof spent by a login step, inside its transaction: a held proof
    /// from memory (given back if the transaction does not commit), any
    /// other from the store.
    public func spend(_ tx: any StoreWriter, proof: String, userID: String, deviceID: String) throws -> Bool {
        let hash = Self.hash(Array(proof.utf8))
        if let held = heldProofs[hash] {
            guard held.userID == userID, held.deviceID == deviceID, held.expiresAt > clock() else { return false }
            heldProofs[hash] = nil
            // Given back if the login's transaction does not commit (the
            // store runs this before running a busy body again, too).
            tx.onRollback { [self] in heldProofs[hash] = held }
            return true
        }
        return try tx.spendDeviceProof(proofHash: hash, userID: userID, deviceID: deviceID, now: clock())
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

    /// Keeps a credential the host checked (`WebAuthnRelyingParty.register`)
    /// for the activation of this user on this device; nil when its id is
    /// registered already (to this or any other device).
    public func holdNewCredential(userID: String, deviceID: String, _ registration: WebAuthnRelyingParty.Registration) throws -> String? {
        let credentialID = registration.credential.credentialID
        let inUse = try store.read { tx in try tx.webauthnCredentialInUse(credentialID) }
        if inUse {
            try store.write(durability: .relaxed) { tx in try audit.count(tx, userID, "device.key", "credential-in-use") }
            return nil
        }
        let now = clock()
        if !newCredentials.isEmpty { newCredentials = newCredentials.filter { $0.value.expiresAt > now } }
        let keyID = WebAuthnCredential.keyID(of: credentialID)
        newCredentials[keyID] = NewCredential(userID: userID, deviceID: deviceID, registration: registration, expiresAt: now + Self.proofSeconds)
        return keyID
    }

    /// How a WebAuthn device's proof ended, and whether its user was verified (UV).
    public struct WebAuthnFinish: Equatable {
        public let finish: Finish
        public let userVerified: Bool
        /// The counter went backwards: the credential was revoked (`WebAuthnCounter`).
        public let cloneSuspected: Bool
    }

    /// Checks a WebAuthn assertion over a challenge from `begin` (its
    /// `challenge` is SHA-256 of `message`); the challenge is used either way.
    public func finishWebAuthn(
        userID: String, deviceID: String, nonce: [UInt8], message: [UInt8], answer: JSON?, relyingParty: WebAuthnRelyingParty,
        requireUserVerification: Bool
    ) throws -> WebAuthnFinish {
        let now = clock()
        let proof = RandomHex.make(bytes: 32)
        return try store.write(durability: .relaxed) { tx in
            func refuse(_ why: String, clone: Bool = false) throws -> WebAuthnFinish {
                try audit.count(tx, userID, "device.prove", why)
                return WebAuthnFinish(finish: .refused(reason: why), userVerified: false, cloneSuspected: clone)
            }
            guard let key = try tx.deviceKey(userID: userID, deviceID: deviceID), key.revokedAt == nil, key.custody == "webauthn",
                let credential = key.webauthn, try tx.device(userID: userID, deviceID: deviceID)?.status == .active,
                let (algorithm, publicKey) = key.usableKey
            else { return try refuse("not-registered") }
            var verdict: Result<WebAuthnRelyingParty.Assertion, WebAuthnError> = .failure(WebAuthnError("no answer", reason: "no-answer"))
            if let answer {
                verdict = Result { () throws(WebAuthnError) in
                    try relyingParty.assert(
                        answer, challenge: WebAuthnSignedData.challenge(for: message), credential: credential, algorithm: algorithm,
                        publicKey: publicKey, userID: userID, requireUserVerification: requireUserVerification)
                }
            }
            let assertion = try? verdict.get()
            let backwards = assertion.map { WebAuthnCounter.wentBackwards(stored: credential.signCount, asserted: $0.authenticatorData.signCount) } ?? false
            let valid = assertion != nil && !backwards
            guard
                try tx.useDeviceChallenge(
                    nonceHash: Self.hash(nonce), userID: userID, deviceID: deviceID, now: now, proofHash: valid ? Self.hash(Array(proof.utf8)) : nil,
                    proofExpiresAt: valid ? now + Self.proofSeconds : nil)
            else { return try refuse("stale-challenge") }
            if case .failure(let error) = verdict { return try refuse(error.reason) }
            guard let assertion, try WebAuthnCounter.advance(tx, key, assertion, audit: audit, now: now) else {
                return try refuse("clone-suspected", clone: true)
            }
            return WebAuthnFinish(finish: .proven(proof: proof), userVerified: assertion.userVerified, cloneSuspected: false)
        }
    }

    static func hash(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&digest, digest.count, bytes, UInt64(bytes.count), nil, 0)
        return Hex.encode(digest)
    }
}
