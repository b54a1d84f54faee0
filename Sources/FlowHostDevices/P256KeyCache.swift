import FlowHostLibCrypto
import FlowHostPOSIX

/// The public keys libcrypto has already parsed, by their point. Parsing a
/// key goes through OpenSSL 3's decoder search, which costs more than the
/// verification itself; a host serves one device, whose key it checks at
/// every login, step-up and signature, so it parses that key once.
///
/// `@unchecked Sendable`: every access to `keys` holds `lock`; a parsed
/// EVP_PKEY is only read by a verification, which libcrypto allows from
/// several threads at once.
final class P256KeyCache: @unchecked Sendable {
    static let shared = P256KeyCache()

    /// A few keys: a host's own device, and the devices a verifier of
    /// receipts meets in turn; the oldest is dropped first.
    private static let capacity = 8
    private let lock = Lock()
    private var keys: [(point: [UInt8], key: LibCryptoObject)] = []

    /// The parsed key for `point`, parsing it with `parse` on a miss. A
    /// point that does not parse is not kept.
    func key(_ point: [UInt8], parse: ([UInt8]) throws -> LibCryptoObject) throws -> LibCryptoObject {
        if let hit = lock.withLock({ keys.first { $0.point == point }?.key }) { return hit }
        let parsed = try parse(point)
        lock.withLock {
            if keys.count == Self.capacity { keys.removeFirst() }
            keys.append((point, parsed))
        }
        return parsed
    }
}
