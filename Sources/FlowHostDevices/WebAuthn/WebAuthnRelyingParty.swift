import CSodium
import FlowJSON

/// The host as a WebAuthn relying party (spec §14, "WebAuthn devices"): it
/// checks a new credential (`platform/createCredential`'s answer) and an
/// assertion (`platform/getAssertion`'s) against what it sent and what it
/// registered, and refuses anything that does not hold. Answers are
/// `PublicKeyCredential.toJSON()`'s shape: binary members in base64url
/// without padding.
public struct WebAuthnRelyingParty: Sendable {
    public let settings: WebAuthnSettings

    public init(_ settings: WebAuthnSettings) { self.settings = settings }

    /// SHA-256 of the RP id: what every authenticator data must start with.
    var rpIDHash: [UInt8] { SHA256.digest(Array(settings.rpID.utf8)) }

    /// The opaque user handle a credential is made for: a digest of the
    /// user id, so the authenticator keeps no user id in clear.
    public static func userHandle(_ userID: String) -> [UInt8] { SHA256.digest(Array("flowhost-webauthn-user\n\(userID)".utf8)) }

    /// A new credential, checked: the key, its algorithm and what the authenticator said of it.
    public struct Registration: Sendable {
        public let credential: WebAuthnCredential
        public let algorithm: DeviceKeyAlgorithm
        public let publicKey: [UInt8]
        public let userVerified: Bool
        /// "none" or "packed" (never trusted; see `attestationFormats`).
        public let attestationFormat: String
    }

    /// The attestation formats taken. A `packed` statement is read for its
    /// format only: nothing in it is trusted (no metadata service), and the
    /// AAGUID recorded is the authenticator data's.
    static let attestationFormats = ["none", "packed"]
    /// An attestation object with a certificate chain fits many times over.
    static let maxAttestationBytes = 16384

    /// `platform/createCredential`'s answer for `challenge`.
    public func register(_ answer: JSON, challenge: [UInt8], requireUserVerification: Bool) throws(WebAuthnError) -> Registration {
        let (rawID, response) = try Self.envelope(answer)
        let clientData = try Self.binary(response, "clientDataJSON")
        try WebAuthnClientData.check(clientData, type: "webauthn.create", challenge: challenge, origins: settings.origins)
        let object: CBOR
        let attestationBytes = try Self.binary(response, "attestationObject")
        guard attestationBytes.count <= Self.maxAttestationBytes else { throw WebAuthnError("attestationObject longer than \(Self.maxAttestationBytes) bytes") }
        do { object = try CBORReader.decode(attestationBytes) } catch { throw WebAuthnError("attestationObject: \(error)") }
        guard case .text(let format)? = object[text: "fmt"], Self.attestationFormats.contains(format) else {
            throw WebAuthnError("an attestation format other than none or packed")
        }
        guard case .map(let statement)? = object[text: "attStmt"], format != "none" || statement.isEmpty else {
            throw WebAuthnError("attStmt is not a map (empty for none)")
        }
        guard case .bytes(let authDataBytes)? = object[text: "authData"], case .map(let members) = object, members.count == 3 else {
            throw WebAuthnError("attestationObject is not {fmt, attStmt, authData}")
        }
        let data = try AuthenticatorData(authDataBytes)
        try check(data, requireUserVerification: requireUserVerification)
        guard let attested = data.attestedCredential else { throw WebAuthnError("no attested credential data (AT not set)") }
        guard attested.credentialID == rawID else { throw WebAuthnError("rawId is not the attested credential id", reason: "wrong-credential") }
        let (algorithm, publicKey) = try COSEKey.parse(attested.publicKey)
        return Registration(
            credential: WebAuthnCredential(
                credentialID: attested.credentialID, signCount: data.signCount, backupEligible: data.flags.contains(.backupEligible),
                backedUp: data.flags.contains(.backedUp), aaguid: attested.aaguid),
            algorithm: algorithm, publicKey: publicKey, userVerified: data.flags.contains(.userVerified), attestationFormat: format)
    }

    /// An assertion, checked, with what it says and the bytes a third party checks its signature over.
    public struct Assertion: Sendable {
        public let authenticatorData: AuthenticatorData
        public let clientDataJSON: [UInt8]
        /// The signature in the one form FlowHost keeps (ES256: strict DER, low s).
        public let signature: [UInt8]
        public var userVerified: Bool { authenticatorData.flags.contains(.userVerified) }
    }

    /// `platform/getAssertion`'s answer for `challenge`, by the registered
    /// credential `credential` (its key `publicKey`, of `algorithm`). The
    /// counter is the caller's to compare, inside its transaction.
    public func assert(
        _ answer: JSON, challenge: [UInt8], credential: WebAuthnCredential, algorithm: DeviceKeyAlgorithm, publicKey: [UInt8], userID: String,
        requireUserVerification: Bool
    ) throws(WebAuthnError) -> Assertion {
        let (rawID, response) = try Self.envelope(answer)
        guard rawID == credential.credentialID else { throw WebAuthnError("not this device's credential", reason: "wrong-credential") }
        let clientData = try Self.binary(response, "clientDataJSON")
        try WebAuthnClientData.check(clientData, type: "webauthn.get", challenge: challenge, origins: settings.origins)
        let data = try AuthenticatorData(try Self.binary(response, "authenticatorData"))
        guard data.attestedCredential == nil else { throw WebAuthnError("attested credential data in an assertion") }
        try check(data, requireUserVerification: requireUserVerification)
        if let handle = response["userHandle"], !handle.isNull {
            guard let text = handle.stringValue, Base64.decodeURLSafe(text) == Self.userHandle(userID) else {
                throw WebAuthnError("the user handle is not this user's", reason: "wrong-credential")
            }
        }
        let raw = try Self.binary(response, "signature")
        let signed = data.bytes + SHA256.digest(clientData)
        let signature: [UInt8]
        switch algorithm {
        case .es256:
            // WebAuthn's ES256 signatures are DER, and authenticators do not keep s low:
            // either s is taken, and the receipt keeps the low one.
            guard let lowS = P256.lowSSignature(der: raw) else { throw WebAuthnError("a malformed ES256 signature", reason: "bad-signature") }
            signature = lowS
        case .ed25519:
            signature = raw
        }
        guard algorithm.verify(signature, of: signed, publicKey: publicKey) else { throw WebAuthnError("the signature does not hold", reason: "bad-signature") }
        return Assertion(authenticatorData: data, clientDataJSON: clientData, signature: signature)
    }

    /// What every authenticator data must say: this RP, the user present,
    /// verified when required; a synced credential only where allowed.
    private func check(_ data: AuthenticatorData, requireUserVerification: Bool) throws(WebAuthnError) {
        guard sodium_memcmp(data.rpIDHash, rpIDHash, 32) == 0 else { throw WebAuthnError("the RP id hash is not this RP's", reason: "wrong-rp") }
        guard data.flags.contains(.userPresent) else { throw WebAuthnError("the user was not present (UP)", reason: "user-not-present") }
        if requireUserVerification, !data.flags.contains(.userVerified) {
            throw WebAuthnError("the user was not verified (UV) and verification is required", reason: "user-not-verified")
        }
        if data.flags.contains(.backupEligible), !settings.allowSynced {
            throw WebAuthnError("a synced credential (BE) and webauthn.allowSynced is false", reason: "synced-credential")
        }
    }

    /// `{id, rawId, type: "public-key", response}`: the raw id (id and rawId the same) and the response.
    private static func envelope(_ answer: JSON) throws(WebAuthnError) -> ([UInt8], JSON) {
        guard answer["type"]?.stringValue == "public-key" else { throw WebAuthnError("type is not public-key") }
        guard let id = answer["id"]?.stringValue, id == answer["rawId"]?.stringValue, let raw = Base64.decodeURLSafe(id), !raw.isEmpty,
            raw.count <= AuthenticatorData.maxCredentialIDBytes
        else { throw WebAuthnError("id and rawId are not the same base64url credential id") }
        guard let response = answer["response"], response.kind == .object else { throw WebAuthnError("no response object") }
        return (raw, response)
    }

    private static func binary(_ response: JSON, _ name: String) throws(WebAuthnError) -> [UInt8] {
        guard let text = response[name]?.stringValue, let bytes = Base64.decodeURLSafe(text), !bytes.isEmpty else {
            throw WebAuthnError("response.\(name) is not base64url")
        }
        return bytes
    }
}
