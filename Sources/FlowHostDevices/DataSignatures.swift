import FlowHostAudit
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// The signatures domain: data signatures made with a device's key, their
/// receipts, and their verification. The signing itself (the host's
/// keyring, or the client's keystore through a host request) is the
/// caller's; this type makes the message, checks what came back against the
/// registered public key before anything is stored, and answers later
/// whether a receipt holds.
///
/// Used from one thread at a time (the host's loop, or an admin command).
public final class DataSignatures {
    let store: any FlowStore
    let audit: AuditLog
    let clock: () -> Int64

    public init(store: any FlowStore, audit: AuditLog, clock: @escaping () -> Int64) {
        self.store = store
        self.audit = audit
        self.clock = clock
    }

    /// What to sign: the message, and the key to sign it with.
    public struct Pending: Sendable {
        public let message: DataSignatureMessage
        public let key: DeviceKeyRecord
        let publicKey: [UInt8]
        let verifiedBy: String
    }

    public enum Start: Sendable {
        case sign(Pending)
        /// The device has no usable key (none, revoked, or malformed).
        case noKey
    }

    public func begin(
        userID: String, deviceID: String, payload: String, reason: String, authLevel: Int, authenticatorType: Int, verifiedBy: String
    ) throws -> Start {
        guard let key = try store.read({ try $0.deviceKey(userID: userID, deviceID: deviceID) }), key.revokedAt == nil,
            let publicKey = HexBytes.decode(key.publicKey), publicKey.count == Ed25519.publicKeyBytes
        else { return .noKey }
        let message = DataSignatureMessage(
            dataSignatureID: SecureRandom.hex(bytes: 16), userID: userID, deviceID: deviceID, keyID: key.keyID, authLevel: authLevel,
            authenticatorType: authenticatorType, signedAt: clock(), reason: reason, payload: payload)
        return .sign(Pending(message: message, key: key, publicKey: publicKey, verifiedBy: verifiedBy))
    }

    /// Stores the receipt when `signature` is the device key's over the
    /// message; nil (and nothing stored) when it is not.
    public func finish(_ pending: Pending, signature: [UInt8]) throws -> SignatureReceiptRecord? {
        let message = pending.message
        guard message.verify(signature: signature, publicKey: pending.publicKey) else {
            try store.write { try audit.row($0, message.userID, message.deviceID, "data.sign", "bad-signature") }
            return nil
        }
        let receipt = SignatureReceiptRecord(
            dataSignatureID: message.dataSignatureID, userID: message.userID, deviceID: message.deviceID, keyID: message.keyID,
            publicKey: pending.key.publicKey, authLevel: message.authLevel, authenticatorType: message.authenticatorType,
            verifiedBy: pending.verifiedBy, signedAt: message.signedAt, reason: message.reason, payload: message.payload,
            signature: Base64.encode(signature))
        try store.write { tx in
            try tx.insert(receipt)
            try audit.row(
                tx, message.userID, message.deviceID, "data.sign", "ok",
                ["dataSignatureID": .string(message.dataSignatureID), "authLevel": .int(message.authLevel), "verifiedBy": .string(pending.verifiedBy)])
        }
        return receipt
    }

    // MARK: Verification

    public struct Verdict: Sendable {
        public let valid: Bool
        /// valid, badSignature, unknownSignature, unknownKey, malformed.
        public let reason: String
        /// The receipt as stored, when the id is known.
        public let stored: SignatureReceiptRecord?
    }

    /// A signature by its id: the stored receipt checked with the key that
    /// was registered when it was made.
    public func verify(dataSignatureID: String) throws -> Verdict {
        guard let stored = try store.read({ try $0.signatureReceipt(dataSignatureID) }) else {
            return Verdict(valid: false, reason: "unknownSignature", stored: nil)
        }
        return check(Self.message(of: stored), signature: stored.signature, publicKey: stored.publicKey, stored: stored)
    }

    /// A full receipt (the JSON `receipt` shape): its fields and signature,
    /// checked with the key this store registered for its device: the key of
    /// the stored receipt with that id, else the device's current key, and
    /// only if the key ids agree. A key carried in the receipt is never used.
    public func verify(receipt: JSON) throws -> Verdict {
        guard let (message, signature) = Self.parse(receipt) else { return Verdict(valid: false, reason: "malformed", stored: nil) }
        let (stored, device) = try store.read { tx in
            (try tx.signatureReceipt(message.dataSignatureID), try tx.deviceKey(userID: message.userID, deviceID: message.deviceID))
        }
        if let stored {
            guard stored.keyID == message.keyID else { return Verdict(valid: false, reason: "unknownKey", stored: stored) }
            return check(message, signature: signature, publicKey: stored.publicKey, stored: stored)
        }
        guard let device, device.keyID == message.keyID else { return Verdict(valid: false, reason: "unknownKey", stored: nil) }
        return check(message, signature: signature, publicKey: device.publicKey, stored: nil)
    }

    private func check(_ message: DataSignatureMessage, signature: String, publicKey: String, stored: SignatureReceiptRecord?) -> Verdict {
        guard let signatureBytes = Base64.decode(signature), let key = HexBytes.decode(publicKey) else {
            return Verdict(valid: false, reason: "malformed", stored: stored)
        }
        let valid = message.verify(signature: signatureBytes, publicKey: key)
        return Verdict(valid: valid, reason: valid ? "valid" : "badSignature", stored: stored)
    }

    // MARK: The receipt's JSON shape

    public static func message(of receipt: SignatureReceiptRecord) -> DataSignatureMessage {
        DataSignatureMessage(
            dataSignatureID: receipt.dataSignatureID, userID: receipt.userID, deviceID: receipt.deviceID, keyID: receipt.keyID,
            authLevel: receipt.authLevel, authenticatorType: receipt.authenticatorType, signedAt: receipt.signedAt, reason: receipt.reason,
            payload: receipt.payload)
    }

    /// `{version, algorithm, dataSignatureID, userID, deviceID, keyID,
    /// authLevel, authenticatorType, verifiedBy, signedAt, reason,
    /// dataPayload, payloadSignature, publicKey}`; `publicKey` (base64) is
    /// for a third party's own check: FlowHost never verifies with it.
    public static func json(_ receipt: SignatureReceiptRecord) -> JSON {
        [
            "version": 1, "algorithm": "Ed25519", "dataSignatureID": .string(receipt.dataSignatureID), "userID": .string(receipt.userID),
            "deviceID": .string(receipt.deviceID), "keyID": .string(receipt.keyID), "authLevel": .int(receipt.authLevel),
            "authenticatorType": .int(receipt.authenticatorType), "verifiedBy": .string(receipt.verifiedBy),
            "signedAt": .int(Int(receipt.signedAt)), "reason": .string(receipt.reason), "dataPayload": .string(receipt.payload),
            "payloadSignature": .string(receipt.signature),
            "publicKey": .string(HexBytes.decode(receipt.publicKey).map(Base64.encode) ?? ""),
        ]
    }

    static func parse(_ receipt: JSON) -> (DataSignatureMessage, String)? {
        guard receipt["version"]?.intValue == 1, let id = receipt["dataSignatureID"]?.stringValue, let user = receipt["userID"]?.stringValue,
            let device = receipt["deviceID"]?.stringValue, let keyID = receipt["keyID"]?.stringValue,
            let level = receipt["authLevel"]?.intValue, let type = receipt["authenticatorType"]?.intValue,
            let signedAt = receipt["signedAt"]?.intValue, let reason = receipt["reason"]?.stringValue,
            let payload = receipt["dataPayload"]?.stringValue, let signature = receipt["payloadSignature"]?.stringValue
        else { return nil }
        let message = DataSignatureMessage(
            dataSignatureID: id, userID: user, deviceID: device, keyID: keyID, authLevel: level, authenticatorType: type,
            signedAt: Int64(signedAt), reason: reason, payload: payload)
        return (message, signature)
    }
}
