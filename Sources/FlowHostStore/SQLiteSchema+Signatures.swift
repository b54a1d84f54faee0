/// The signatures module: receipts of data signatures, append-only.
extension SQLiteSchemaModule {
    static let signatures = SQLiteSchemaModule(name: "signatures", migrations: [
        (id: "v1-signature-receipts", sql: """
            CREATE TABLE signature_receipt (
                id TEXT PRIMARY KEY NOT NULL,
                user_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                public_key TEXT NOT NULL,
                auth_level INTEGER NOT NULL,
                authenticator_type INTEGER NOT NULL,
                verified_by TEXT NOT NULL,
                signed_at INTEGER NOT NULL,
                reason TEXT NOT NULL,
                payload TEXT NOT NULL,
                signature TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX signature_receipt_by_user ON signature_receipt(user_id, signed_at);
            -- A receipt is evidence: it is never changed or removed.
            CREATE TRIGGER signature_receipt_no_update BEFORE UPDATE ON signature_receipt
                BEGIN SELECT RAISE(ABORT, 'signature receipts are append-only'); END;
            CREATE TRIGGER signature_receipt_no_delete BEFORE DELETE ON signature_receipt
                BEGIN SELECT RAISE(ABORT, 'signature receipts are append-only'); END;
            """),
        // FlowHost's countersignature (ReceiptIssuer): a receipt proves its issuance.
        (id: "v2-issuer-countersignature", sql: """
            ALTER TABLE signature_receipt ADD COLUMN issuer_key_id TEXT;
            ALTER TABLE signature_receipt ADD COLUMN issuer_signature TEXT;
            """),
    ])
}
