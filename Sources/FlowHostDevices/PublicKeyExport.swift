/// A device's public key in the two forms other tools read: PEM
/// (SubjectPublicKeyInfo, RFC 8410) and JWK (RFC 8037, `OKP` / `Ed25519`).
public enum PublicKeyExport {
    /// The DER prefix of an Ed25519 SubjectPublicKeyInfo: SEQUENCE { SEQUENCE
    /// { OID 1.3.101.112 }, BIT STRING (32 bytes) }.
    static let spkiPrefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]

    public static func pem(_ publicKey: [UInt8]) -> String {
        let body = Base64.encode(spkiPrefix + publicKey)
        var lines = ["-----BEGIN PUBLIC KEY-----"]
        var rest = Substring(body)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        lines.append("-----END PUBLIC KEY-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{kty, crv, x, kid}`; `x` is base64url without padding.
    public static func jwk(_ publicKey: [UInt8], keyID: String) -> [(String, String)] {
        let url = Base64.encodeURLSafe(publicKey)
        return [("kty", "OKP"), ("crv", "Ed25519"), ("x", url), ("kid", keyID)]
    }
}
