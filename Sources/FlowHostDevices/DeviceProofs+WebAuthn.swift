import FlowHostAudit
import FlowHostStore
import FlowJSON

/// A WebAuthn device's side of the proofs: the credential checked at
/// activation, held until the activation registers it, and each assertion.
extension DeviceProofs {
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
    /// `challenge` is SHA-256 of `message`); the challenge is used either
    /// way. The key is read again, and its counter compared and kept in a
    /// transaction of its own: a counter that went backwards revokes the
    /// credential (`WebAuthnCounter`).
    public func finishWebAuthn(
        userID: String, deviceID: String, nonce: [UInt8], message: [UInt8], answer: JSON?, relyingParty: WebAuthnRelyingParty,
        requireUserVerification: Bool
    ) throws -> WebAuthnFinish {
        let now = clock()
        let challenge = pendingChallenges.removeValue(forKey: Self.hash(nonce))
        func refused(_ why: String, clone: Bool = false) throws -> WebAuthnFinish {
            WebAuthnFinish(finish: try refuse(why, auditedFor: userID), userVerified: false, cloneSuspected: clone)
        }
        let registered = try store.read { tx -> DeviceKeyRecord? in
            guard let key = try tx.deviceKey(userID: userID, deviceID: deviceID), key.revokedAt == nil,
                try tx.device(userID: userID, deviceID: deviceID)?.status == .active
            else { return nil }
            return key
        }
        guard let key = registered, key.custody == "webauthn", let credential = key.webauthn, let (algorithm, publicKey) = key.usableKey else {
            return try refused("not-registered")
        }
        guard let challenge, challenge.userID == userID, challenge.deviceID == deviceID, challenge.keyID == key.keyID, challenge.expiresAt > now
        else { return try refused("stale-challenge") }
        guard let answer else { return try refused("no-answer") }
        let assertion: WebAuthnRelyingParty.Assertion
        do throws(WebAuthnError) {
            assertion = try relyingParty.assert(
                answer, challenge: WebAuthnSignedData.challenge(for: message), credential: credential, algorithm: algorithm,
                publicKey: publicKey, userID: userID, requireUserVerification: requireUserVerification)
        } catch { return try refused(error.reason) }
        // Nil: the key changed or was revoked meanwhile.
        let advanced = try store.write { tx -> Bool? in
            guard let current = try tx.deviceKey(userID: userID, deviceID: deviceID), current.keyID == key.keyID, current.revokedAt == nil else {
                return nil
            }
            return try WebAuthnCounter.advance(tx, current, assertion, audit: audit, now: now)
        }
        guard let advanced else { return try refused("not-registered") }
        guard advanced else { return try refused("clone-suspected", clone: true) }
        return WebAuthnFinish(
            finish: .proven(proof: keepProof(userID: userID, deviceID: deviceID, keyID: key.keyID, now: now)), userVerified: assertion.userVerified, cloneSuspected: false)
    }
}
