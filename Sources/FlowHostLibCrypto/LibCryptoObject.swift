import CLibCrypto

/// A libcrypto object (an EVP_PKEY, an EVP_PKEY_CTX, an EVP_MD_CTX, an
/// ECDSA_SIG, a BIGNUM, an EC_GROUP, an EC_KEY) and its one Swift owner,
/// which frees it when it goes, unless it was handed to another object that
/// frees it instead (`ECDSA_SIG_set0` takes its two numbers).
public final class LibCryptoObject {
    public enum Kind {
        case key, keyContext, digestContext, signature, number, group, ecKey
    }

    public let kind: Kind
    private(set) var pointer: OpaquePointer?

    /// Owns what `make` returns (made through `LibCrypto.make`).
    public init(_ kind: Kind, _ call: StaticString, _ make: (LibCrypto.API) -> OpaquePointer?) throws(LibCryptoError) {
        self.kind = kind
        pointer = try LibCrypto.make(call, make)
    }

    /// The object, for a call that borrows it.
    public var borrowed: OpaquePointer { pointer! }

    /// Hands the object to a call that takes it over; this owner frees nothing.
    public func handOver() -> OpaquePointer {
        defer { pointer = nil }
        return pointer!
    }

    deinit {
        guard let pointer else { return }
        LibCrypto.run { api in
            switch kind {
            case .key: api.EVP_PKEY_free(pointer)
            case .keyContext: api.EVP_PKEY_CTX_free(pointer)
            case .digestContext: api.EVP_MD_CTX_free(pointer)
            case .signature: api.ECDSA_SIG_free(pointer)
            case .number: api.BN_free(pointer)
            case .group: api.EC_GROUP_free(pointer)
            case .ecKey: api.EC_KEY_free(pointer)
            }
        }
    }
}
