import CSodium
import FlowHostVocabulary

/// Ed25519 through libsodium: key pairs, detached signatures, key ids.
public enum Ed25519 {
    public static let publicKeyBytes = fh_sign_public_key_bytes()
    public static let signatureBytes = fh_sign_bytes()

    /// A new key pair: (public key, secret key). The caller wipes the secret.
    static func makeKeyPair() -> (publicKey: [UInt8], secretKey: [UInt8]) {
        _ = sodium_init()
        var publicKey = [UInt8](repeating: 0, count: fh_sign_public_key_bytes())
        var secretKey = [UInt8](repeating: 0, count: fh_sign_secret_key_bytes())
        crypto_sign_keypair(&publicKey, &secretKey)
        return (publicKey, secretKey)
    }

    static func sign(_ message: [UInt8], secretKey: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: fh_sign_bytes())
        crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
        return signature
    }

    /// Whether `secretKey` (libsodium's 64 bytes: seed, then public key) is
    /// the secret half of `publicKey`. The public key is made again from the
    /// seed, not read from the secret key's second half, which a damaged or
    /// forged file could copy from the registered key; compared in constant time.
    static func isSecretKey(_ secretKey: [UInt8], of publicKey: [UInt8]) -> Bool {
        guard secretKey.count == fh_sign_secret_key_bytes(), publicKey.count == fh_sign_public_key_bytes() else { return false }
        _ = sodium_init()
        var made = [UInt8](repeating: 0, count: fh_sign_public_key_bytes())
        var scratch = [UInt8](repeating: 0, count: fh_sign_secret_key_bytes())
        defer { SecureRandom.wipe(&scratch) }
        // The seed is the secret key's first half (crypto_sign_ed25519_sk_to_seed).
        let madeKey = secretKey.withUnsafeBufferPointer { crypto_sign_seed_keypair(&made, &scratch, $0.baseAddress!) } == 0
        return madeKey && sodium_memcmp(made, publicKey, made.count) == 0
    }

    public static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == fh_sign_bytes(), publicKey.count == fh_sign_public_key_bytes() else { return false }
        _ = sodium_init()
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// Whether a public key a platform offers may be registered: a point on
    /// the curve, in the main subgroup, and not of small order. The
    /// identity, the all-zero encoding and the order-8 points are refused:
    /// lenient verifiers accept forged signatures under them.
    public static func isStrongPublicKey(_ key: [UInt8]) -> Bool {
        guard key.count == fh_sign_public_key_bytes() else { return false }
        _ = sodium_init()
        return crypto_core_ed25519_is_valid_point(key) == 1
    }

    /// A key's name: its 16-byte BLAKE2b digest (outlen 16, not a longer digest cut), hex.
    public static func keyID(of publicKey: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 16)
        _ = crypto_generichash(&digest, digest.count, publicKey, UInt64(publicKey.count), nil, 0)
        return Hex.encode(digest)
    }
}

/// Bytes from hex, the store's spelling of public keys.
public enum HexBytes {
    public static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
