/// A credential's public key as an authenticator gives it (a COSE_Key,
/// RFC 9053), read into the form FlowHost keeps device keys in. Two kinds
/// are taken, each with exactly its members and nothing else:
/// - EC2 (kty 2), alg −7 (ES256), crv 1 (P-256), x and y of 32 bytes:
///   kept as the 65-byte uncompressed point (on the curve is checked where
///   it is registered, as for a platform's P-256 key);
/// - OKP (kty 1), alg −8 (EdDSA), crv 6 (Ed25519), x of 32 bytes.
/// Any other key type, algorithm or curve is refused.
public enum COSEKey {
    public static let es256 = -7
    public static let edDSA = -8

    /// The key's algorithm and public key bytes; throws why it is refused.
    public static func parse(_ key: CBOR) throws(WebAuthnError) -> (algorithm: DeviceKeyAlgorithm, publicKey: [UInt8]) {
        guard case .map(let entries) = key else { throw WebAuthnError("the credential public key is not a COSE key (a CBOR map)") }
        let labels = entries.compactMap { $0.key.intValue }
        guard labels.count == entries.count else { throw WebAuthnError("the COSE key has a label that is not an integer") }
        func bytes(_ label: Int, _ count: Int) throws(WebAuthnError) -> [UInt8] {
            guard case .bytes(let value)? = key[int: label], value.count == count else {
                throw WebAuthnError("the COSE key's member \(label) is not \(count) bytes")
            }
            return value
        }
        switch (key[int: 1]?.intValue, key[int: 3]?.intValue, key[int: -1]?.intValue) {
        case (2, es256, 1):
            guard Set(labels) == [1, 3, -1, -2, -3] else { throw WebAuthnError("the EC2 key has members other than kty, alg, crv, x and y") }
            return (.es256, [0x04] + (try bytes(-2, 32)) + (try bytes(-3, 32)))
        case (1, edDSA, 6):
            guard Set(labels) == [1, 3, -1, -2] else { throw WebAuthnError("the OKP key has members other than kty, alg, crv and x") }
            return (.ed25519, try bytes(-2, 32))
        case (let kty, let alg, let crv):
            throw WebAuthnError(
                "a COSE key of kty \(kty.map(String.init) ?? "?"), alg \(alg.map(String.init) ?? "?"), crv \(crv.map(String.init) ?? "?") (accepted: ES256 on P-256, EdDSA on Ed25519)")
        }
    }
}

/// Why a WebAuthn answer is refused (never holds a key or a signature).
public struct WebAuthnError: Error, Equatable, CustomStringConvertible {
    public let description: String
    /// The audit's word for it (`device.prove`, `device.key`).
    public let reason: String
    public init(_ description: String, reason: String = "malformed") {
        self.description = description
        self.reason = reason
    }
}
