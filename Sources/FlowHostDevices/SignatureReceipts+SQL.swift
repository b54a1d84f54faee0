import FlowHostStore

/// The SQL of signature receipts.
extension StoreReader {
    public func signatureReceipt(_ dataSignatureID: String) throws -> SignatureReceiptRecord? {
        try query(
            """
            SELECT id, user_id, device_id, key_id, public_key, auth_level, authenticator_type, verified_by, signed_at, reason, payload, signature,
                issuer_key_id, issuer_signature, algorithm, authenticator_data, client_data_json
            FROM signature_receipt WHERE id = ?
            """, [.text(dataSignatureID)]
        ) {
            SignatureReceiptRecord(
                dataSignatureID: $0.string(0), userID: $0.string(1), deviceID: $0.string(2), keyID: $0.string(3), publicKey: $0.string(4),
                authLevel: $0.int(5), authenticatorType: $0.int(6), verifiedBy: $0.string(7), signedAt: $0.int64(8), reason: $0.string(9),
                payload: $0.string(10), signature: $0.string(11), issuerKeyID: $0.isNull(12) ? nil : $0.string(12),
                issuerSignature: $0.isNull(13) ? nil : $0.string(13), algorithm: $0.string(14),
                webauthn: $0.isNull(15) ? nil : WebAuthnSignedData(authenticatorData: $0.string(15), clientDataJSON: $0.string(16)))
        }.first
    }
}

extension StoreWriter {
    /// Receipts are never changed or deleted (the store refuses it).
    public func insert(_ receipt: SignatureReceiptRecord) throws {
        try run(
            """
            INSERT INTO signature_receipt (id, user_id, device_id, key_id, public_key, auth_level, authenticator_type, verified_by, signed_at,
                reason, payload, signature, issuer_key_id, issuer_signature, algorithm, authenticator_data, client_data_json)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(receipt.dataSignatureID), .text(receipt.userID), .text(receipt.deviceID), .text(receipt.keyID), .text(receipt.publicKey),
                .int(receipt.authLevel), .int(receipt.authenticatorType), .text(receipt.verifiedBy), .integer(receipt.signedAt),
                .text(receipt.reason), .text(receipt.payload), .text(receipt.signature), .optional(receipt.issuerKeyID),
                .optional(receipt.issuerSignature), .text(receipt.algorithm), .optional(receipt.webauthn?.authenticatorData),
                .optional(receipt.webauthn?.clientDataJSON),
            ])
    }
}
