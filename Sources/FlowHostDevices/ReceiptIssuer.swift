import CSodium
import FlowHostAudit
import FlowHostPOSIX
import FlowHostStore
import FlowHostVocabulary

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FlowHost's own word on its receipts and session tokens: an Ed25519 key
/// of the deployment, from its key set (spec §19, "The issuer's keys").
///
/// The store keeps the set's public halves and states (`IssuerKeyRecord`):
/// one key is active and signs; retired keys still verify what they signed;
/// a withdrawn key verifies nothing, and what it signed reads `revoked`. The
/// secret halves stay in files, mode 0600, never in the store: the
/// deployment's first key in `path` (`issuer.key` beside the store, or with
/// PostgreSQL in the state folder), each later one in `folder` as
/// `KEYID.key`. Every machine that signs needs the active key's file; a
/// rotation stages the next key first, so that it can be copied to every
/// machine before it signs (`IssuerKeySet`).
///
/// The first key is made on first use (never at start) if `path` is absent,
/// all at once (`SystemFile.create`), and registered as active if the set
/// has none, so hosts starting together agree on one key. A host reads
/// which key is active again after `refreshSeconds`: a rotation reaches
/// every host within that time, and the key it replaced keeps verifying.
/// Used from one thread at a time (the host's loop, or an admin command).
public final class ReceiptIssuer {
    public let path: String
    public let folder: String
    let store: any FlowStore
    /// The signing key, read once per `refreshSeconds`; the secret half is
    /// wiped when it is replaced or the issuer goes.
    private var loaded: (keyID: String, publicKey: [UInt8], secretKey: [UInt8], readAt: Int64)?
    static let refreshSeconds: Int64 = 60

    public init(path: String, folder: String, store: any FlowStore) {
        self.path = path
        self.folder = folder
        self.store = store
    }

    deinit { forget() }

    /// Drops the signing key (wiped in place: a copy would be wiped instead of the key's own storage).
    func forget() {
        if loaded != nil { SecureRandom.wipe(&loaded!.secretKey) }
        loaded = nil
    }

    /// `tx`: the caller's open transaction, when it signs inside one (the
    /// store allows one transaction at a time per connection).
    private func key(in tx: (any StoreWriter)? = nil) throws -> (keyID: String, publicKey: [UInt8], secretKey: [UInt8]) {
        let now = DomainContext.now()
        if let loaded, now - loaded.readAt < Self.refreshSeconds { return (loaded.keyID, loaded.publicKey, loaded.secretKey) }
        let active = try tx.map(activeKey(in:)) ?? activeKey()
        if loaded?.keyID == active.keyID {
            loaded!.readAt = now
        } else {
            let secret = try secretKey(of: active)
            forget()
            loaded = (active.keyID, active.publicKey, secret, now)
        }
        return (loaded!.keyID, loaded!.publicKey, loaded!.secretKey)
    }

    /// The active key; with none yet (a new store, or one from before key
    /// sets), the first key's file is made if absent and registered.
    func activeKey() throws -> IssuerKeyRecord {
        if let active = try store.read({ try $0.activeIssuerKey() }) { return active }
        return try store.write { try activeKey(in: $0) }
    }

    /// The same, inside the caller's transaction.
    func activeKey(in tx: any StoreWriter) throws -> IssuerKeyRecord {
        if let active = try tx.activeIssuerKey() { return active }  // perhaps another host registered one meanwhile
        let first = try firstKeyFile()
        guard try tx.issuerKey(first.keyID) == nil else {
            throw DeviceError("the issuer key set has no active key: run flowhost admin rotate-issuer, then rotate-issuer --activate")
        }
        try tx.insertIssuerKey(keyID: first.keyID, publicKey: first.publicKey, state: .active, at: DomainContext.now())
        // Undone with the transaction: the key must not stay loaded as active
        // (a retried attempt would then sign without registering it).
        tx.onRollback { [weak self] in self?.forget() }
        return try tx.activeIssuerKey()!
    }

    /// The active key's id and public key.
    public func publicKey() throws -> (keyID: String, publicKey: [UInt8]) {
        let key = try key()
        return (key.keyID, key.publicKey)
    }

    /// `tx`: the caller's open transaction, when it signs inside one.
    public func sign(_ message: [UInt8], in tx: (any StoreWriter)? = nil) throws -> (keyID: String, signature: [UInt8]) {
        let key = try key(in: tx)
        return (key.keyID, Ed25519.sign(message, secretKey: key.secretKey))
    }

    /// What the key set says of `signature` under the key named `keyID`.
    public enum Check: Equatable, Sendable {
        case valid
        /// The signature does not hold under that key.
        case invalid
        /// No key of that id was ever in the set.
        case unknownKey
        /// The signature holds, but the key was withdrawn (`reason`, the operator's).
        case withdrawn(reason: String)
    }

    public func check(_ signature: [UInt8], of message: [UInt8], keyID: String) throws -> Check {
        var record = try store.read { try $0.issuerKey(keyID) }
        if record == nil {
            // A store from before key sets names its first key in its receipts
            // before any host has registered it.
            _ = try activeKey()
            record = try store.read { try $0.issuerKey(keyID) }
        }
        guard let record else { return .unknownKey }
        guard Ed25519.verify(signature, of: message, publicKey: record.publicKey) else { return .invalid }
        if record.state == .withdrawn { return .withdrawn(reason: record.withdrawnReason ?? "") }
        return .valid
    }

    /// The first key's id and public half; its file made if absent.
    private func firstKeyFile() throws -> (keyID: String, publicKey: [UInt8]) {
        if access(path, F_OK) != 0 {
            var (_, secret) = Ed25519.makeKeyPair()
            defer { SecureRandom.wipe(&secret) }
            do { try SystemFile.create(path, bytes: secret, mode: 0o600) } catch where error.errno == EEXIST {
                // Another host made it first: theirs is the key.
            } catch {
                throw DeviceError("cannot write the receipt issuer key \(path): \(error)")
            }
        }
        var secret = try Self.readSecret(path)
        defer { SecureRandom.wipe(&secret) }
        let publicKey = Self.publicKey(of: secret)
        return (Ed25519.keyID(of: publicKey), publicKey)
    }

    /// Where `keyID`'s secret half is kept on this machine.
    public func keyFile(_ keyID: String) -> String { folder + "/" + keyID + ".key" }

    /// `record`'s secret half from this machine's files, checked against its
    /// public half; an error that says which file to copy when it is missing.
    func secretKey(of record: IssuerKeyRecord) throws -> [UInt8] {
        for file in [keyFile(record.keyID), path] where access(file, F_OK) == 0 {
            var secret = try Self.readSecret(file)
            if Self.publicKey(of: secret) == record.publicKey { return secret }
            SecureRandom.wipe(&secret)
        }
        throw DeviceError(
            "the issuer's \(record.state.rawValue) key \(record.keyID) is not on this machine: copy \(keyFile(record.keyID)) (mode 0600) from the machine that made it")
    }

    static func readSecret(_ file: String) throws -> [UInt8] {
        try PrivateFile.check([file])
        let secret: [UInt8]
        do { secret = try SystemFile.read(file) } catch { throw DeviceError("cannot read the receipt issuer key \(file): \(error)") }
        guard secret.count == fh_sign_secret_key_bytes() else { throw DeviceError("the receipt issuer key \(file) is damaged") }
        return secret
    }

    static func publicKey(of secret: [UInt8]) -> [UInt8] {
        var publicKey = [UInt8](repeating: 0, count: fh_sign_public_key_bytes())
        _ = crypto_sign_ed25519_sk_to_pk(&publicKey, secret)
        return publicKey
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
