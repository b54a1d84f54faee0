#if !canImport(CryptoKit) && canImport(FlowHostLibCrypto)
import CLibCrypto
import FlowHostLibCrypto
import Foundation

/// A P-256 key in software, made and used by the system's libcrypto (Linux
/// has no CryptoKit): for tools and tests that play a platform's keystore.
/// Its secret half stays in libcrypto's memory and goes with the key.
///
/// Unchecked Sendable: the key never changes once made, and libcrypto signs
/// with one key from several threads at once (each signing has its own context).
public final class SoftwareP256Key: DeviceSigningKey, @unchecked Sendable {
    public let algorithm = DeviceKeyAlgorithm.es256
    public let publicKey: Data
    private let key: LibCryptoObject

    /// The DER prefix of a P-256 SubjectPublicKeyInfo around its 65-byte point.
    private static let spkiPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01,
        0x07, 0x03, 0x42, 0x00,
    ]

    public init() throws {
        let context = try LibCryptoObject(.keyContext, "EVP_PKEY_CTX_new_from_name") { $0.EVP_PKEY_CTX_new_from_name(nil, "EC", nil) }
        try LibCrypto.check("EVP_PKEY_keygen_init") { $0.EVP_PKEY_keygen_init(context.borrowed) }
        try LibCrypto.check("EVP_PKEY_CTX_set_group_name") { $0.EVP_PKEY_CTX_set_group_name(context.borrowed, "P-256") }
        var made: OpaquePointer?
        try LibCrypto.check("EVP_PKEY_generate") { $0.EVP_PKEY_generate(context.borrowed, &made) }
        let key = try LibCryptoObject(.key, "EVP_PKEY_generate") { _ in made }
        let count = try LibCrypto.length("i2d_PUBKEY") { $0.i2d_PUBKEY(key.borrowed, nil) }
        var spki = [UInt8](repeating: 0, count: count)
        _ = try spki.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return try LibCrypto.length("i2d_PUBKEY") { $0.i2d_PUBKEY(key.borrowed, &cursor) }
        }
        guard spki.count == Self.spkiPrefix.count + 65, spki.starts(with: Self.spkiPrefix) else {
            throw LibCryptoError(call: "i2d_PUBKEY", detail: "not a P-256 key")
        }
        self.key = key
        publicKey = Data(spki[Self.spkiPrefix.count...])
    }

    /// ECDSA with SHA-256 over `message`, as r‖s (s as libcrypto gives it: either half).
    public func signature(for message: Data) throws -> Data {
        let bytes = [UInt8](message)
        let context = try LibCryptoObject(.digestContext, "EVP_MD_CTX_new") { $0.EVP_MD_CTX_new() }
        try LibCrypto.check("EVP_DigestSignInit") { $0.EVP_DigestSignInit(context.borrowed, nil, $0.EVP_sha256(), nil, key.borrowed) }
        var length = 0
        try LibCrypto.check("EVP_DigestSign") { $0.EVP_DigestSign(context.borrowed, nil, &length, bytes, bytes.count) }
        var der = [UInt8](repeating: 0, count: length)
        try LibCrypto.check("EVP_DigestSign") { $0.EVP_DigestSign(context.borrowed, &der, &length, bytes, bytes.count) }
        let signature = try der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return try LibCryptoObject(.signature, "d2i_ECDSA_SIG") { $0.d2i_ECDSA_SIG(nil, &cursor, length) }
        }
        var raw = [UInt8](repeating: 0, count: 64)
        let (r, s) = LibCrypto.run { ($0.ECDSA_SIG_get0_r(signature.borrowed), $0.ECDSA_SIG_get0_s(signature.borrowed)) }
        _ = try raw.withUnsafeMutableBufferPointer { buffer in
            _ = try LibCrypto.length("BN_bn2binpad") { $0.BN_bn2binpad(r, buffer.baseAddress, 32) }
            return try LibCrypto.length("BN_bn2binpad") { $0.BN_bn2binpad(s, buffer.baseAddress! + 32, 32) }
        }
        return Data(raw)
    }
}
#endif
