/// A device's public key in the two forms other tools read: PEM
/// (SubjectPublicKeyInfo: RFC 8410 for Ed25519, RFC 5480 for P-256) and JWK
/// (RFC 8037's `OKP` / `Ed25519`; RFC 7518's `EC` / `P-256`). The
/// algorithm follows from the key's encoding (`DeviceKeyAlgorithm(publicKey:)`).
public enum PublicKeyExport {
    /// The DER prefix of an Ed25519 SubjectPublicKeyInfo: SEQUENCE { SEQUENCE
    /// { OID 1.3.101.112 }, BIT STRING (32 bytes) }.
    static let spkiPrefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]

    public static func pem(_ publicKey: [UInt8]) -> String {
        let der = DeviceKeyAlgorithm(publicKey: publicKey) == .es256 ? P256.spki(publicKey) : spkiPrefix + publicKey
        let body = Base64.encode(der)
        var lines = ["-----BEGIN PUBLIC KEY-----"]
        var rest = Substring(body)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        lines.append("-----END PUBLIC KEY-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Ed25519: `{kty: OKP, crv: Ed25519, x, kid}`; P-256: `{kty: EC, crv:
    /// P-256, x, y, kid}` (x and y the point's 32-byte coordinates). Every
    /// value in base64url without padding.
    public static func jwk(_ publicKey: [UInt8], keyID: String) -> [(String, String)] {
        if DeviceKeyAlgorithm(publicKey: publicKey) == .es256 {
            let x = Base64.encodeURLSafe(Array(publicKey[1..<33]))
            let y = Base64.encodeURLSafe(Array(publicKey[33..<65]))
            return [("kty", "EC"), ("crv", "P-256"), ("x", x), ("y", y), ("kid", keyID)]
        }
        return [("kty", "OKP"), ("crv", "Ed25519"), ("x", Base64.encodeURLSafe(publicKey)), ("kid", keyID)]
    }
}
