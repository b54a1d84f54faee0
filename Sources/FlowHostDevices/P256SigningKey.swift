import FlowHostLibCrypto

/// A P-256 key pair made by libcrypto, for tests that play a platform's
/// keystore: the host itself signs only with Ed25519 (host custody, the
/// issuer) and only verifies P-256 keys, which platforms hold.
package final class P256SigningKey {
    private let key: LibCryptoObject

    package init() throws {
        let context = try LibCryptoObject(.keyContext, "EVP_PKEY_CTX_new_from_name") { $0.EVP_PKEY_CTX_new_from_name(nil, "EC", nil) }
        try LibCrypto.check("EVP_PKEY_keygen_init") { $0.EVP_PKEY_keygen_init(context.borrowed) }
        try LibCrypto.check("EVP_PKEY_CTX_set_group_name") { $0.EVP_PKEY_CTX_set_group_name(context.borrowed, "P-256") }
        var made: OpaquePointer?
        try LibCrypto.check("EVP_PKEY_generate") { $0.EVP_PKEY_generate(context.borrowed, &made) }
        key = try LibCryptoObject(.key, "EVP_PKEY_generate") { _ in made }
    }

    /// The 65-byte uncompressed point.
    package func publicKey() throws -> [UInt8] {
        let count = try LibCrypto.length("i2d_PUBKEY") { $0.i2d_PUBKEY(key.borrowed, nil) }
        var der = [UInt8](repeating: 0, count: count)
        _ = try der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return try LibCrypto.length("i2d_PUBKEY") { $0.i2d_PUBKEY(key.borrowed, &cursor) }
        }
        guard let point = P256.point(fromPlatform: der) else { throw LibCryptoError(call: "i2d_PUBKEY", detail: "not a P-256 key") }
        return point
    }

    /// A DER signature over SHA-256 of `message` (its s may be high: libcrypto does not lower it).
    package func sign(_ message: [UInt8]) throws -> [UInt8] {
        let context = try LibCryptoObject(.digestContext, "EVP_MD_CTX_new") { $0.EVP_MD_CTX_new() }
        try LibCrypto.check("EVP_DigestSignInit") { $0.EVP_DigestSignInit(context.borrowed, nil, $0.EVP_sha256(), nil, key.borrowed) }
        var length = 0
        try LibCrypto.check("EVP_DigestSign") { $0.EVP_DigestSign(context.borrowed, nil, &length, message, message.count) }
        var signature = [UInt8](repeating: 0, count: length)
        try LibCrypto.check("EVP_DigestSign") { $0.EVP_DigestSign(context.borrowed, &signature, &length, message, message.count) }
        return Array(signature.prefix(length))
    }
}
