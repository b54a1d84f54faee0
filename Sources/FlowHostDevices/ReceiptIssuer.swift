import CSodium
import FlowHostPOSIX
import FlowHostStore
import FlowHostVocabulary

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FlowHost's own word on its receipts: an Ed25519 key of the deployment,
/// kept in a file beside the store (mode 0600; with PostgreSQL, in the state
/// folder, the same file on every machine), never in the store. Every
/// receipt is countersigned with it over all its fields, `verifiedBy`
/// included, so a receipt proves that this deployment issued it, unchanged:
/// a holder of a device key can sign data, but cannot make a receipt, and a
/// row changed in the database no longer verifies. `flowhost admin
/// export-key --issuer` gives its public key to third parties.
///
/// The file is read on first use (never at start), made if absent, all at
/// once (`SystemFile.create`), so hosts starting together agree on one key.
/// Used from one thread at a time (the host's loop, or an admin command).
public final class ReceiptIssuer {
    public let path: String
    /// The key, read once (every signing would otherwise read and check the
    /// file); the secret half is wiped when the issuer goes.
    private var loaded: (keyID: String, publicKey: [UInt8], secretKey: [UInt8])?

    public init(path: String) { self.path = path }

    deinit {
        // In place: a copy would be wiped instead of the key's own storage.
        if loaded != nil { SecureRandom.wipe(&loaded!.secretKey) }
    }

    private func key() throws -> (keyID: String, publicKey: [UInt8], secretKey: [UInt8]) {
        if let loaded { return loaded }
        let secret = try secretKey()
        var publicKey = [UInt8](repeating: 0, count: fh_sign_public_key_bytes())
        _ = crypto_sign_ed25519_sk_to_pk(&publicKey, secret)
        let made = (Ed25519.keyID(of: publicKey), publicKey, secret)
        loaded = made
        return made
    }

    /// The issuer's key id (as a device key's: its BLAKE2b hash) and public key.
    public func publicKey() throws -> (keyID: String, publicKey: [UInt8]) {
        let key = try key()
        return (key.keyID, key.publicKey)
    }

    public func sign(_ message: [UInt8]) throws -> (keyID: String, signature: [UInt8]) {
        let key = try key()
        return (key.keyID, Ed25519.sign(message, secretKey: key.secretKey))
    }

    /// Whether `signature` is this issuer's, under the key named `keyID`.
    public func verify(_ signature: [UInt8], of message: [UInt8], keyID: String) throws -> Bool {
        let key = try publicKey()
        return key.keyID == keyID && Ed25519.verify(signature, of: message, publicKey: key.publicKey)
    }

    private func secretKey() throws -> [UInt8] {
        let size = fh_sign_secret_key_bytes()
        if access(path, F_OK) != 0 {
            var (_, secret) = Ed25519.makeKeyPair()
            defer { SecureRandom.wipe(&secret) }
            do { try SystemFile.create(path, bytes: secret, mode: 0o600) } catch where error.errno == EEXIST {
                // Another host made it first: theirs is the key.
            } catch {
                throw DeviceError("cannot write the receipt issuer key \(path): \(error)")
            }
        }
        try PrivateFile.check([path])
        let secret: [UInt8]
        do { secret = try SystemFile.read(path) } catch { throw DeviceError("cannot read the receipt issuer key \(path): \(error)") }
        guard secret.count == size else { throw DeviceError("the receipt issuer key \(path) is damaged") }
        return secret
    }
}

/// The bytes the issuer signs for a receipt (spec §19): a fixed first line,
/// then the device's signed message (base64), and what the device's
/// signature does not cover: how the user was verified, the device's public
/// key and the signature itself.
public enum ReceiptAttestation {
    public static let header = "flowhost-receipt-v1"

    public static func bytes(_ receipt: SignatureReceiptRecord) -> [UInt8] {
        bytes(receipt, message: DataSignatures.message(of: receipt).bytes)
    }

    /// The same, with the device's signed message (`DataSignatureMessage.bytes` of the receipt) already made.
    static func bytes(_ receipt: SignatureReceiptRecord, message: [UInt8]) -> [UInt8] {
        var lines = SignedLines(
            header: header, capacity: 100 + message.count / 3 * 4 + receipt.verifiedBy.utf8.count * 2 + receipt.publicKey.utf8.count
                + receipt.signature.utf8.count)
        lines.base64("message", message)
        lines.text("verifiedBy", receipt.verifiedBy)
        lines.plain("publicKey", receipt.publicKey)
        lines.plain("payloadSignature", receipt.signature)
        // A WebAuthn device's receipt: what its signature covers besides the message (base64url already).
        if let signed = receipt.webauthn {
            lines.plain("authenticatorData", signed.authenticatorData)
            lines.plain("clientDataJSON", signed.clientDataJSON)
        }
        return lines.bytes
    }
}
