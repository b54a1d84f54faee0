import CSodium

/// SHA-256 (libsodium's): WebAuthn hashes the RP id and clientDataJSON with
/// it, and an ES256 signature signs a message's digest.
public enum SHA256 {
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest
    }
}
