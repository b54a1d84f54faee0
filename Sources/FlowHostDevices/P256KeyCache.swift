import FlowHostLibCrypto
import FlowHostPOSIX

/// The public keys libcrypto has already parsed, by their point, each with
/// a verification context made for it. Parsing a key goes through OpenSSL
/// 3's decoder search, and making a digest context for each check walks
/// the provider's fetch and set-up code; a host serves one device, whose
/// key it checks at every login, step-up and signature, long after its
/// caches last held that code, so it does both once per key and then
/// verifies a digest directly (docs/performance.md, "P-256").
///
/// `@unchecked Sendable`: every access to `entries`, and every use of a
/// kept context (which libcrypto does not allow from two threads at once),
/// holds `lock`.
final class P256KeyCache: @unchecked Sendable {
    static let shared = P256KeyCache()

    /// A few keys: a host's own device, and the devices a verifier of
    /// receipts meets in turn; the oldest is dropped first.
    private static let capacity = 8
    private let lock = Lock()
    private var entries: [(point: [UInt8], key: LibCryptoObject, verifier: LibCryptoObject)] = []

    /// `body` with the verification context for `point`'s key, made (the key
    /// parsed with `parse`) on a miss. A point that does not parse is not kept.
    func withVerifier<T>(_ point: [UInt8], parse: ([UInt8]) throws -> LibCryptoObject, _ body: (LibCryptoObject) throws -> T) throws -> T {
        try lock.withLock {
            if let hit = entries.first(where: { $0.point == point }) { return try body(hit.verifier) }
            let key = try parse(point)
            let verifier = try LibCryptoObject(.keyContext, "EVP_PKEY_CTX_new") { $0.EVP_PKEY_CTX_new(key.borrowed, nil) }
            try LibCrypto.check("EVP_PKEY_verify_init") { $0.EVP_PKEY_verify_init(verifier.borrowed) }
            if entries.count == Self.capacity { entries.removeFirst() }
            entries.append((point, key, verifier))
            return try body(verifier)
        }
    }
}
