import CLibCrypto
import FlowHostLibCrypto

/// P-256's group, made once per process (building it computes the
/// curve's Montgomery constants) and copied into each verification key.
///
/// `@unchecked Sendable`: after it is made the group is only read
/// (`EC_KEY_set_group` copies it), which libcrypto allows from any thread.
final class P256Group: @unchecked Sendable {
    let object: LibCryptoObject

    private init(_ object: LibCryptoObject) { self.object = object }

    /// The group, or why libcrypto could not make it (not installed, say).
    static let shared: Result<P256Group, LibCryptoError> = Result { () throws(LibCryptoError) in
        P256Group(try LibCryptoObject(.group, "EC_GROUP_new_by_curve_name") { $0.EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) })
    }
}
