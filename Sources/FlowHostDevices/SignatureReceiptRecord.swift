/// The signatures domain's record: receipts of data signatures, kept so that
/// a signature can be checked later by its id, with the public key that was
/// registered when it was made (a device's key may change afterwards).

/// What was signed, by which key, when: everything the canonical message
/// covers, the signature, and the public key it verifies with.
public struct SignatureReceiptRecord: Sendable, Equatable {
    public var dataSignatureID: String
    public var userID: String
    public var deviceID: String
    public var keyID: String
    /// The device's public key at signing time, hex (`DeviceKeyRecord.publicKey`).
    public var publicKey: String
    /// That key's algorithm ("Ed25519", "ES256").
    public var algorithm: String
    public var authLevel: Int
    public var authenticatorType: Int
    /// How the user proved who they are before signing: "none", "lda", "password", "serverBiometric" ("lda+password" in level-4 receipts made before protocol 1.1).
    public var verifiedBy: String
    public var signedAt: Int64
    public var reason: String
    public var payload: String
    /// The device's signature, base64: Ed25519's 64 bytes, or ES256 in strict DER.
    public var signature: String
    /// The issuer's countersignature over every field (`ReceiptAttestation`):
    /// the issuer key's id, and 64 bytes, base64. Nil only for receipts
    /// stored before receipts were countersigned.
    public var issuerKeyID: String?
    public var issuerSignature: String?
    /// A WebAuthn device's signing (spec §19): the authenticator data and
    /// clientDataJSON the signature covers with the message's digest as its
    /// challenge; nil for every other key.
    public var webauthn: WebAuthnSignedData?

    public init(
        dataSignatureID: String, userID: String, deviceID: String, keyID: String, publicKey: String, authLevel: Int, authenticatorType: Int,
        verifiedBy: String, signedAt: Int64, reason: String, payload: String, signature: String, issuerKeyID: String? = nil,
        issuerSignature: String? = nil, algorithm: String = DeviceKeyAlgorithm.ed25519.rawValue,
        webauthn: WebAuthnSignedData? = nil
    ) {
        self.webauthn = webauthn
        self.algorithm = algorithm
        self.issuerKeyID = issuerKeyID
        self.issuerSignature = issuerSignature
        self.dataSignatureID = dataSignatureID
        self.userID = userID
        self.deviceID = deviceID
        self.keyID = keyID
        self.publicKey = publicKey
        self.authLevel = authLevel
        self.authenticatorType = authenticatorType
        self.verifiedBy = verifiedBy
        self.signedAt = signedAt
        self.reason = reason
        self.payload = payload
        self.signature = signature
    }
}
