import FlowHostES256
import FlowHostLibCrypto

/// ES256: ECDSA on P-256 with SHA-256, for device keys a platform holds (a
/// Secure Enclave, a TPM, Android's keystore). The curve and the
/// verification are libcrypto's (`LibCrypto`); what is accepted is decided
/// here, strictly, so that one signature has one form:
///
/// - a public key is the 65-byte uncompressed SEC1 point (or a P-256
///   SubjectPublicKeyInfo around it, which becomes that point), on the curve;
///   the point at infinity, compressed points and explicit curve parameters
///   are refused;
/// - a signature is DER (strict: minimal lengths and integers, nothing after
///   it) or the 64 bytes r‖s, with 1 ≤ r < n and 1 ≤ s ≤ n/2. A high s is
///   refused: (r, n − s) verifies too, and a second form of one signature
///   would let a receipt's signature be changed and still verify.
///
/// A 64-byte answer is read as DER when it is strict DER, otherwise as r‖s:
/// a DER signature is 64 bytes long only when r and s are both short, and
/// r‖s parses as strict DER by chance far more rarely still; either reading
/// of a wrong signature fails.
public enum P256 {
    public static let publicKeyBytes = 65

    /// The DER prefix of a P-256 SubjectPublicKeyInfo: SEQUENCE { SEQUENCE {
    /// OID id-ecPublicKey, OID prime256v1 }, BIT STRING (65 bytes) }.
    static let spkiPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01,
        0x07, 0x03, 0x42, 0x00,
    ]
    /// The uncompressed point in a platform's answer: the 65-byte SEC1
    /// point itself, or a P-256 SubjectPublicKeyInfo (DER) around one. Nil
    /// for anything else; whether the point is on the curve is `isValidPublicKey`'s.
    public static func point(fromPlatform bytes: [UInt8]) -> [UInt8]? {
        if bytes.count == publicKeyBytes, bytes[0] == 0x04 { return bytes }
        if bytes.count == spkiPrefix.count + publicKeyBytes, bytes.starts(with: spkiPrefix), bytes[spkiPrefix.count] == 0x04 {
            return Array(bytes[spkiPrefix.count...])
        }
        return nil
    }

    /// The point as a SubjectPublicKeyInfo (DER): what PEM and libcrypto read.
    public static func spki(_ point: [UInt8]) -> [UInt8] { spkiPrefix + point }

    /// Whether `point` may be registered: uncompressed, on the curve, a
    /// valid public key by libcrypto's full check. Throws only when
    /// libcrypto cannot be loaded (the caller says so to the operator).
    public static func isValidPublicKey(_ point: [UInt8]) throws(LibCryptoError) -> Bool {
        _ = try LibCrypto.api()
        guard point.count == publicKeyBytes, point[0] == 0x04 else { return false }
        do {
            let key = try publicKey(point)
            let context = try LibCryptoObject(.keyContext, "EVP_PKEY_CTX_new") { $0.EVP_PKEY_CTX_new(key.borrowed, nil) }
            try LibCrypto.check("EVP_PKEY_public_check") { $0.EVP_PKEY_public_check(context.borrowed) }
            return true
        } catch { return false }
    }

    /// Whether `signature` (DER or r‖s, as above) is `point`'s over `message`.
    public static func verify(_ signature: [UInt8], of message: [UInt8], publicKey point: [UInt8]) -> Bool {
        guard point.count == publicKeyBytes, point[0] == 0x04, let der = canonicalSignature(signature) else { return false }
        // The digest is libsodium's, whose code a host runs anyway.
        let digest = SHA256.digest(message)
        do {
            let key = try verificationKey(point)
            return try LibCrypto.verdict("ECDSA_verify") {
                $0.ECDSA_verify(0, digest, Int32(digest.count), der, Int32(der.count), key.borrowed)
            }
        } catch { return false }
    }

    /// The point as libcrypto's EC_KEY on the curve's one group, which
    /// refuses a point off the curve. Made at every check: from the point
    /// it costs little beside the verification, where parsing an SPKI
    /// through OpenSSL 3's decoders cost more than it (docs/performance.md).
    static func verificationKey(_ point: [UInt8]) throws -> LibCryptoObject {
        let group = try P256Group.shared.get()
        let key = try LibCryptoObject(.ecKey, "EC_KEY_new") { $0.EC_KEY_new() }
        try LibCrypto.check("EC_KEY_set_group") { $0.EC_KEY_set_group(key.borrowed, group.object.borrowed) }
        try LibCrypto.check("EC_KEY_oct2key") { $0.EC_KEY_oct2key(key.borrowed, point, point.count, nil) }
        return key
    }

    /// The signature in strict DER, from DER or r‖s; nil when it is neither,
    /// or r or s is out of range, or s is high. Receipts keep this form.
    public static func canonicalSignature(_ signature: [UInt8]) -> [UInt8]? {
        let scalars = strictDERScalars(signature) ?? (signature.count == 64 ? (Array(signature[..<32]), Array(signature[32...])) : nil)
        guard let (r, s) = scalars, !isZero(r), r.lexicographicallyPrecedes(ES256Signature.order), !isZero(s), !ES256Signature.isHigh(s) else {
            return nil
        }
        return ES256Signature.der(r + s)
    }

    /// A WebAuthn ES256 signature (strict DER only) in the form above, its
    /// s made low when it is high: an authenticator signs with either s,
    /// and only its own assertion, over a single-use challenge, is taken,
    /// so the other form gains a forger nothing. Nil when it is not strict DER.
    public static func lowSSignature(der: [UInt8]) -> [UInt8]? {
        guard let (r, s) = strictDERScalars(der), let low = ES256Signature.lowS(r + s) else { return nil }
        return canonicalSignature(low)
    }

    /// r and s (32 bytes each) of a strict DER signature; nil for anything
    /// else: BER (a long or padded length, a padded integer), bytes after
    /// it, a negative integer, one longer than 32 bytes. Parsed in Swift
    /// (`ES256Signature`): libcrypto's ASN.1 decoder is code a login would
    /// otherwise bring into the caches for a 70-byte value.
    static func strictDERScalars(_ bytes: [UInt8]) -> ([UInt8], [UInt8])? {
        guard let raw = ES256Signature.raw(fromDER: bytes) else { return nil }
        return (Array(raw[..<32]), Array(raw[32...]))
    }

    /// A SubjectPublicKeyInfo's key, parsed by libcrypto (which refuses a point off the curve).
    static func publicKey(_ point: [UInt8]) throws -> LibCryptoObject {
        try spki(point).withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            let key = try LibCryptoObject(.key, "d2i_PUBKEY") { $0.d2i_PUBKEY(nil, &cursor, buffer.count) }
            guard cursor == buffer.baseAddress! + buffer.count else { throw LibCryptoError(call: "d2i_PUBKEY", detail: "bytes after the key") }
            return key
        }
    }

    private static func isZero(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { $0 == 0 } }
}
