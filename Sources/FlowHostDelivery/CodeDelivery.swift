import FlowHostPOSIX
import CSodium
import FlowHostVocabulary
import FlowHostStore
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A code on its way to its user. The message body is JSON:
/// `{userID, activationCode, verificationKey, expiresAt}`.
public struct CodeMessage: Sendable {
    public let userID: String
    public let activationCode: String
    public let verificationKey: String
    public let expiresAt: Int64

    public init(userID: String, activationCode: String, verificationKey: String, expiresAt: Int64) {
        self.userID = userID
        self.activationCode = activationCode
        self.verificationKey = verificationKey
        self.expiresAt = expiresAt
    }

    func json() -> JSON {
        [
            "userID": .string(userID), "activationCode": .string(activationCode),
            "verificationKey": .string(verificationKey), "expiresAt": .int(Int(expiresAt)),
        ]
    }
}

/// Where activation codes go. Every message is first sealed into the
/// store's outbox, inside the transaction that made the code, so nothing is
/// lost; what happens after the commit depends on the deployment.
public protocol CodeDelivery {
    /// Seals the message into the outbox in the caller's transaction; returns its id.
    func enqueue(_ message: CodeMessage, in transaction: any StoreWriter, at now: Int64) throws -> Int64
    /// The transaction committed: start delivering `outboxID` without waiting.
    func committed(outboxID: Int64)
}

/// Seals each message (XChaCha20-Poly1305, libsodium) under a key kept in a
/// file beside the store (mode 0600), so the store never holds a code in the
/// clear; `flowhost admin outbox` opens them. The user id is authenticated
/// data: a sealed message moved to another user does not open.
public struct OutboxDelivery: CodeDelivery {
    let key: [UInt8]

    public init(keyPath: String) throws {
        guard sodium_init() >= 0 else { throw DeliveryError("libsodium failed to initialise") }
        key = try OutboxKey.loadOrCreate(at: keyPath)
    }

    public func enqueue(_ message: CodeMessage, in transaction: any StoreWriter, at now: Int64) throws -> Int64 {
        var body = Array(message.json().serialized().utf8)
        defer { SecureRandom.wipe(&body) }
        return try transaction.enqueue(
            OutboxMessage(userID: message.userID, kind: Self.codeKind, sealedBody: seal(body, userID: message.userID), createdAt: now))
    }

    /// The outbox kinds: a code for its user, an audit row for `events.command`,
    /// a notification's push for `push.command`.
    public static let codeKind = "activation-code"
    public static let eventKind = "audit-event"
    public static let pushKind = "push"

    /// Seals an audit event (`AuditEventDelivery`) into the outbox in the
    /// caller's transaction; returns its id. `userID` is "" for a row that names no user.
    func enqueueEvent(_ body: [UInt8], userID: String, in transaction: any StoreWriter, at now: Int64) throws -> Int64 {
        try enqueueSealed(body, kind: Self.eventKind, userID: userID, in: transaction, at: now)
    }

    /// Seals `body` as a message of `kind` for `userID` in the caller's transaction; returns its id.
    func enqueueSealed(_ body: [UInt8], kind: String, userID: String, in transaction: any StoreWriter, at now: Int64) throws -> Int64 {
        try transaction.enqueue(OutboxMessage(userID: userID, kind: kind, sealedBody: seal(body, userID: userID), createdAt: now))
    }

    /// The operator reads the outbox (`flowhost admin outbox`): nothing to start.
    public func committed(outboxID: Int64) {}

    func seal(_ plain: [UInt8], userID: String) -> [UInt8] {
        let nonce = SecureRandom.bytes(fh_aead_nonce_bytes())
        var sealed = [UInt8](repeating: 0, count: plain.count + fh_aead_tag_bytes())
        var sealedLength: UInt64 = 0
        let extra = Array(userID.utf8)
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
            &sealed, &sealedLength, plain, UInt64(plain.count), extra, UInt64(extra.count), nil, nonce, key)
        return nonce + sealed[0..<Int(sealedLength)]
    }

    /// Opens a sealed outbox message; fails if it was altered or moved to another user.
    public func open(_ message: OutboxMessage) throws -> JSON {
        var plain = try openBytes(message)
        defer { SecureRandom.wipe(&plain) }
        return try plain.withUnsafeBytes { try JSON.parse($0) }
    }

    /// The opened body, for a caller that wipes it after use.
    func openBytes(_ message: OutboxMessage) throws -> [UInt8] {
        let nonceBytes = fh_aead_nonce_bytes()
        guard message.sealedBody.count >= nonceBytes + fh_aead_tag_bytes() else { throw DeliveryError("outbox message too short") }
        let nonce = Array(message.sealedBody[0..<nonceBytes])
        let sealed = Array(message.sealedBody[nonceBytes...])
        var plain = [UInt8](repeating: 0, count: sealed.count)
        var plainLength: UInt64 = 0
        let extra = Array(message.userID.utf8)
        let code = crypto_aead_xchacha20poly1305_ietf_decrypt(
            &plain, &plainLength, nil, sealed, UInt64(sealed.count), extra, UInt64(extra.count), nonce, key)
        guard code == 0 else { throw DeliveryError("outbox message #\(message.id ?? 0) does not open with this key") }
        let opened = Array(plain[0..<Int(plainLength)])
        SecureRandom.wipe(&plain)
        return opened
    }
}

enum OutboxKey {
    static func loadOrCreate(at path: String) throws -> [UInt8] {
        let size = fh_aead_key_bytes()
        try PrivateFile.check([path])
        do {
            let existing = try SystemFile.read(path)
            guard existing.count == size else { throw DeliveryError("outbox key \(path) is not \(size) bytes") }
            return existing
        } catch let error as SystemError where error.errno == ENOENT {
            // Not made yet: made below.
        }
        let key = SecureRandom.bytes(size)
        do {
            try SystemFile.create(path, bytes: key, mode: 0o600)
            return key
        } catch {
            guard error.errno == EEXIST else { throw error }
            // Another process created it first: use theirs.
            let theirs = try SystemFile.read(path)
            guard theirs.count == size else { throw DeliveryError("outbox key \(path) is not \(size) bytes") }
            return theirs
        }
    }
}

/// Why delivery could not be set up or a message not opened (never holds a code).
public struct DeliveryError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
