import CSodium
import FlowHostVocabulary

/// The secret that accepting an activation code hands to one dialogue, and
/// that completing activation spends. The store keeps only its BLAKE2b-256
/// hash, so a copy of the store cannot complete anyone's activation.
enum ActivationGrant {
    static func hash(_ grant: String) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let bytes = Array(grant.utf8)
        _ = crypto_generichash(&digest, digest.count, bytes, UInt64(bytes.count), nil, 0)
        return Hex.encode(digest)
    }
}
