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
    /// Countersigns every receipt, and is the only key a receipt's issuance is checked with.
    public let issuer: ReceiptIssuer

    public init(_ context: DomainContext, issuer: ReceiptIssuer) {
        store = context.store
        audit = context.audit
        self.issuer = issuer
        clock = context.clock
    }

    /// What to sign: the message, and the key to sign it with.
    public struct Pending: Sendable {
        public let message: DataSignatureMessage
        /// `message.bytes`, made once for the signing, its check and the receipt.
        public let bytes: [UInt8]
        public let key: DeviceKeyRecord
        /// The key's registered public half, as bytes.
        public let publicKey: [UInt8]
        /// The key's registered algorithm.
        public let algorithm: DeviceKeyAlgorithm
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
        try store.read { tx in
            try start(
                tx, userID: userID, deviceID: deviceID, payload: payload, reason: reason, authLevel: authLevel,
                authenticatorType: authenticatorType, verifiedBy: verifiedBy)
        }
    }

    private func start(
        _ tx: any StoreReader, userID: String, deviceID: String, payload: String, reason: String, authLevel: Int, authenticatorType: Int,
        verifiedBy: String
    ) throws -> Start {
        guard let key = try tx.deviceKey(userID: userID, deviceID: deviceID), key.revokedAt == nil, let (algorithm, publicKey) = key.usableKey
        else { return .noKey }
        // A time-ordered id: the receipts' table is keyed by it, and a random
        // id put each new receipt on a random page of a long history.
        let signedAt = clock()
        let message = DataSignatureMessage(
            dataSignatureID: TimeOrderedID.make(at: signedAt), userID: userID, deviceID: deviceID, keyID: key.keyID, authLevel: authLevel,
            authenticatorType: authenticatorType, signedAt: signedAt, reason: reason, payload: payload)
        return .sign(Pending(message: message, bytes: message.bytes, key: key, publicKey: publicKey, algorithm: algorithm, verifiedBy: verifiedBy))
    }

    /// How a signing with a key in the host's custody ended.
    public enum HeldOutcome {
        /// The device has no usable key (none, revoked, or malformed).
        case noKey
        /// The key is in the client's custody: sign `Pending` there, then `finish`.
        case elsewhere(Pending)
        /// Signed and stored.
        case signed(SignatureReceiptRecord)
        /// `sign` made nothing, or a signature the registered key does not
        /// hold (audited as `bad-signature`): nothing stored.
        case notSigned
    }

    /// A signing with a key this host holds, in one write transaction: the
    /// key is read, the message signed (by `sign`, the keyring), countersigned
    /// and stored together, so a key revoked meanwhile signs nothing and no
    /// read transaction comes first. `sign` may run again when the store runs
    /// the body again (a conflict); each run makes a new message with a new
    /// `dataSignatureID`, and only one commits.
    public func signHeld(
        userID: String, deviceID: String, payload: String, reason: String, authLevel: Int, authenticatorType: Int, verifiedBy: String,
        sign: (Pending) -> (signature: [UInt8], byRegisteredKey: Bool)?
    ) throws -> HeldOutcome {
        try store.write { tx in
            guard
                case .sign(let pending) = try start(
                    tx, userID: userID, deviceID: deviceID, payload: payload, reason: reason, authLevel: authLevel,
                    authenticatorType: authenticatorType, verifiedBy: verifiedBy)
            else { return .noKey }
            guard pending.key.custody == "host" else { return .elsewhere(pending) }
            // The keyring makes and signs with Ed25519 keys only.
            guard pending.algorithm == .ed25519, let made = sign(pending) else { return .notSigned }
            return try record(tx, pending, signature: made.signature, byRegisteredKey: made.byRegisteredKey).map(HeldOutcome.signed) ?? .notSigned
        }
    }

    /// Stores the receipt when `signature` is the device key's over the
    /// message; nil (and nothing stored) when it is not. `byRegisteredKey`:
    /// made here by the keyring from a seed it showed to give the registered
    /// key (`DeviceKeyring.HeldSignature`), which holds by construction and
    /// is not checked again; a signature from anywhere else always is.
    public func finish(_ pending: Pending, signature: [UInt8], byRegisteredKey: Bool = false) throws -> SignatureReceiptRecord? {
        try store.write { tx in
            guard try currentKey(tx, pending) != nil else { return nil }
            return try record(tx, pending, signature: signature, byRegisteredKey: byRegisteredKey)
        }
    }

    /// How a WebAuthn device's signing ended.
    public enum WebAuthnOutcome {
        case signed(SignatureReceiptRecord)
        /// Not stored: the key was revoked meanwhile, or the signature does not hold.
        case notSigned
        /// The counter went backwards: a clone is suspected, and the key is revoked (`WebAuthnCounter`).
        case cloneSuspected
    }

    /// Stores the receipt of a WebAuthn device's assertion over the message
    /// (checked by `WebAuthnRelyingParty.assert` against `pending`'s
    /// challenge), its counter compared and kept in the same transaction.
    public func finish(_ pending: Pending, assertion: WebAuthnRelyingParty.Assertion) throws -> WebAuthnOutcome {
        try store.write { tx in
            guard let current = try currentKey(tx, pending) else { return .notSigned }
            guard try WebAuthnCounter.advance(tx, current, assertion, audit: audit, now: clock()) else { return .cloneSuspected }
            let signed = WebAuthnSignedData(
                authenticatorData: Base64.encodeURLSafe(assertion.authenticatorData.bytes), clientDataJSON: Base64.encodeURLSafe(assertion.clientDataJSON))
            return try record(tx, pending, signature: assertion.signature, byRegisteredKey: false, webauthn: signed).map(WebAuthnOutcome.signed) ?? .notSigned
        }
    }

    /// A WebAuthn device's assertion refused before anything is stored
    /// (`WebAuthnRelyingParty.assert`): audited with its reason.
    public func refuse(_ pending: Pending, reason: String) throws {
        try store.write { tx in try audit.row(tx, pending.message.userID, pending.message.deviceID, "data.sign", reason) }
    }

    /// The client signed outside any transaction: the key it signed with
    /// must still be the device's, unrevoked, when the receipt is stored.
    private func currentKey(_ tx: any StoreWriter, _ pending: Pending) throws -> DeviceKeyRecord? {
        let current = try tx.deviceKey(userID: pending.message.userID, deviceID: pending.message.deviceID)
        guard let current, current.keyID == pending.key.keyID, current.revokedAt == nil else {
            try audit.row(tx, pending.message.userID, pending.message.deviceID, "data.sign", "key-revoked")
            return nil
        }
        return current
    }

    /// The receipt for `signature`, stored with its audit row in `tx`; nil
    /// (audited as `bad-signature`) when the signature does not hold.
    private func record(
        _ tx: any StoreWriter, _ pending: Pending, signature: [UInt8], byRegisteredKey: Bool, webauthn: WebAuthnSignedData? = nil
    ) throws -> SignatureReceiptRecord? {
        let message = pending.message
        guard let signature = pending.algorithm.canonicalSignature(signature),
            byRegisteredKey
                || (webauthn.map { $0.verify(signature: signature, message: pending.bytes, publicKey: pending.publicKey, algorithm: pending.algorithm) }
                    ?? DataSignatureMessage.verify(signature: signature, of: pending.bytes, publicKey: pending.publicKey, algorithm: pending.algorithm))
        else {
            try audit.row(tx, message.userID, message.deviceID, "data.sign", "bad-signature")
            return nil
        }
        var receipt = SignatureReceiptRecord(
            dataSignatureID: message.dataSignatureID, userID: message.userID, deviceID: message.deviceID, keyID: message.keyID,
            publicKey: pending.key.publicKey, authLevel: message.authLevel, authenticatorType: message.authenticatorType,
            verifiedBy: pending.verifiedBy, signedAt: message.signedAt, reason: message.reason, payload: message.payload,
            signature: Base64.encode(signature), algorithm: pending.algorithm.rawValue, webauthn: webauthn)
        let attested = try issuer.sign(ReceiptAttestation.bytes(receipt, message: pending.bytes), in: tx)
        receipt.issuerKeyID = attested.keyID
        receipt.issuerSignature = Base64.encode(attested.signature)
        try tx.insert(receipt)
        try audit.row(
            tx, message.userID, message.deviceID, "data.sign", "ok",
            ["dataSignatureID": .string(message.dataSignatureID), "authLevel": .int(message.authLevel), "verifiedBy": .string(pending.verifiedBy)])
        return receipt
    }

    // MARK: Verification

    public struct Verdict: Sendable {
        public let valid: Bool
        /// valid; unknown (not issued here); tampered (`fields` names what
        /// differs or no longer verifies); revoked (signed after the device's
        /// key was revoked, or countersigned by an issuer key since
        /// withdrawn: `detail` says which and why); malformed (not a receipt at all).
        public let reason: String
        /// For a withdrawn issuer key: which, and the operator's reason.
        public let detail: String?
        /// For `tampered`: the receipt fields that differ from what was
        /// issued, or whose signature no longer holds.
        public let fields: [String]
        /// The receipt as stored, when the id is known.
        public let stored: SignatureReceiptRecord?

        /// `{valid, reason, fields?, receipt?}`, the shape of verifyDataSignature and `admin verify-signature`.
        public func json() -> JSON {
            let result: JSON = ["valid": .bool(valid), "reason": .string(reason)]
            if !fields.isEmpty { result["fields"] = .array(fields.map(JSON.string)) }
            if let detail { result["detail"] = .string(detail) }
            if let stored { result["receipt"] = DataSignatures.json(stored) }
            return result
        }

        init(_ reason: String, fields: [String] = [], detail: String? = nil, stored: SignatureReceiptRecord?) {
            valid = reason == "valid"
            self.reason = reason
            self.fields = fields
            self.detail = detail
            self.stored = stored
        }
    }

    /// A signature by its id: the stored receipt, checked as issued.
    public func verify(dataSignatureID: String) throws -> Verdict {
        guard let (stored, key) = try storedReceipt(dataSignatureID) else { return Verdict("unknown", stored: nil) }
        return try check(stored, deviceKey: key)
    }

    /// A full receipt (the JSON `receipt` shape): valid only when this
    /// deployment issued a receipt with its id, every field the same as
    /// issued, its countersignature and the device's signature holding. A
    /// receipt that verifies with a device key alone but that the host never
    /// issued is `unknown`; one whose fields differ is `tampered`, naming them.
    public func verify(receipt: JSON) throws -> Verdict {
        guard Self.parse(receipt) != nil, let id = receipt["dataSignatureID"]?.stringValue else { return Verdict("malformed", stored: nil) }
        guard let (stored, key) = try storedReceipt(id) else { return Verdict("unknown", stored: nil) }
        let issued = Self.json(stored)
        let differing = Self.receiptFields.filter { field in
            receipt[field].map { $0.serialized() } != issued[field].map { $0.serialized() }
        }
        if !differing.isEmpty { return Verdict("tampered", fields: differing, stored: stored) }
        return try check(stored, deviceKey: key)
    }

    /// The members a receipt is compared on (every one but `version`, which `parse` fixes).
    static let receiptFields = [
        "algorithm",
        "dataSignatureID", "userID", "deviceID", "keyID", "authLevel", "authenticatorType", "verifiedBy", "signedAt", "reason", "dataPayload",
        "payloadSignature", "publicKey", "issuer", "webauthn",
    ]

    private func storedReceipt(_ id: String) throws -> (SignatureReceiptRecord, DeviceKeyRecord?)? {
        try store.read { tx in
            guard let stored = try tx.signatureReceipt(id) else { return nil }
            return (stored, try tx.deviceKey(userID: stored.userID, deviceID: stored.deviceID))
        }
    }

    /// A stored receipt: issued here (the countersignature over all its
    /// fields, with this deployment's issuer key), signed by the device
    /// (with the key registered then), before that key was revoked.
    private func check(_ stored: SignatureReceiptRecord, deviceKey: DeviceKeyRecord?) throws -> Verdict {
        guard let issuerKeyID = stored.issuerKeyID, let issuerSignature = stored.issuerSignature.flatMap(Base64.decode) else {
            return Verdict("unknown", stored: stored)  // stored before receipts were countersigned: issuance cannot be shown
        }
        switch try issuer.check(issuerSignature, of: ReceiptAttestation.bytes(stored), keyID: issuerKeyID) {
        case .valid: break
        case .invalid, .unknownKey: return Verdict("tampered", fields: ["issuer"], stored: stored)
        case .withdrawn(let reason):
            return Verdict("revoked", detail: "the issuer key \(issuerKeyID) was withdrawn: \(reason)", stored: stored)
        }
        guard let signature = Base64.decode(stored.signature), let key = HexBytes.decode(stored.publicKey),
            let algorithm = DeviceKeyAlgorithm(rawValue: stored.algorithm), DeviceKeyAlgorithm(publicKey: key) == algorithm,
            stored.webauthn.map({ $0.verify(signature: signature, message: Self.message(of: stored).bytes, publicKey: key, algorithm: algorithm) })
                ?? Self.message(of: stored).verify(signature: signature, publicKey: key, algorithm: algorithm)
        else { return Verdict("tampered", fields: ["payloadSignature"], stored: stored) }
        if let deviceKey, deviceKey.keyID == stored.keyID, let revokedAt = deviceKey.revokedAt, stored.signedAt > revokedAt {
            return Verdict("revoked", stored: stored)
        }
        return Verdict("valid", stored: stored)
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
    /// dataPayload, payloadSignature, publicKey, issuer: {keyID, signature},
    /// webauthn?: {authenticatorData, clientDataJSON}}`;
    /// `publicKey` (base64) and `issuer` are for a third party's own check:
    /// FlowHost checks with the keys it registered and holds, never with a
    /// key a receipt carries.
    public static func json(_ receipt: SignatureReceiptRecord) -> JSON {
        let receiptJSON: JSON = [
            "version": 1, "algorithm": .string(receipt.algorithm), "dataSignatureID": .string(receipt.dataSignatureID), "userID": .string(receipt.userID),
            "deviceID": .string(receipt.deviceID), "keyID": .string(receipt.keyID), "authLevel": .int(receipt.authLevel),
            "authenticatorType": .int(receipt.authenticatorType), "verifiedBy": .string(receipt.verifiedBy),
            "signedAt": .int(Int(receipt.signedAt)), "reason": .string(receipt.reason), "dataPayload": .string(receipt.payload),
            "payloadSignature": .string(receipt.signature),
            "publicKey": .string(HexBytes.decode(receipt.publicKey).map(Base64.encode) ?? ""),
            "issuer": receipt.issuerKeyID.map { ["keyID": .string($0), "signature": .string(receipt.issuerSignature ?? "")] } ?? .null,
        ]
        if let signed = receipt.webauthn {
            receiptJSON["webauthn"] = ["authenticatorData": .string(signed.authenticatorData), "clientDataJSON": .string(signed.clientDataJSON)]
        }
        return receiptJSON
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
