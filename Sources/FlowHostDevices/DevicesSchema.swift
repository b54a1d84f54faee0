import FlowHostAudit
import FlowHostStore

/// The devices domain's tables: each device's public key, the single-use
/// challenges of possession (and the proofs they become), and the receipts
/// of data signatures, which are evidence and so append-only.
public enum DevicesSchema {
    public static func register(in migrator: inout SchemaMigrator) {
        // Proofs and signatures name users the accounts domain knows, and are audited.
        AuditSchema.register(in: &migrator)
        migrator.registerMigration(
            "devices/v1-device-keys",
            sqlite: """
                CREATE TABLE device_key (
                    user_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    key_id TEXT NOT NULL,
                    public_key TEXT NOT NULL,
                    custody TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    revoked_at INTEGER,
                    PRIMARY KEY (user_id, device_id)
                ) WITHOUT ROWID;
                CREATE TABLE device_challenge (
                    nonce_hash TEXT PRIMARY KEY NOT NULL,
                    user_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    key_id TEXT NOT NULL,
                    expires_at INTEGER NOT NULL,
                    used_at INTEGER,
                    proof_hash TEXT,
                    proof_expires_at INTEGER,
                    proof_spent_at INTEGER
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX device_challenge_by_proof ON device_challenge(proof_hash) WHERE proof_hash IS NOT NULL;
                CREATE INDEX device_challenge_by_expiry ON device_challenge(expires_at);
                """,
            postgres: """
                CREATE TABLE device_key (
                    user_id TEXT COLLATE "C" NOT NULL,
                    device_id TEXT COLLATE "C" NOT NULL,
                    key_id TEXT COLLATE "C" NOT NULL,
                    public_key TEXT COLLATE "C" NOT NULL,
                    custody TEXT COLLATE "C" NOT NULL,
                    created_at BIGINT NOT NULL,
                    revoked_at BIGINT,
                    PRIMARY KEY (user_id, device_id)
                );
                CREATE TABLE device_challenge (
                    nonce_hash TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                    user_id TEXT COLLATE "C" NOT NULL,
                    device_id TEXT COLLATE "C" NOT NULL,
                    key_id TEXT COLLATE "C" NOT NULL,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT,
                    proof_hash TEXT COLLATE "C",
                    proof_expires_at BIGINT,
                    proof_spent_at BIGINT
                );
                CREATE UNIQUE INDEX device_challenge_by_proof ON device_challenge(proof_hash) WHERE proof_hash IS NOT NULL;
                CREATE INDEX device_challenge_by_expiry ON device_challenge(expires_at);
                """)
        migrator.registerMigration(
            "signatures/v1-signature-receipts",
            sqlite: """
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
                """,
            postgres: """
                CREATE TABLE signature_receipt (
                    id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                    user_id TEXT COLLATE "C" NOT NULL,
                    device_id TEXT COLLATE "C" NOT NULL,
                    key_id TEXT COLLATE "C" NOT NULL,
                    public_key TEXT COLLATE "C" NOT NULL,
                    auth_level BIGINT NOT NULL,
                    authenticator_type BIGINT NOT NULL,
                    verified_by TEXT COLLATE "C" NOT NULL,
                    signed_at BIGINT NOT NULL,
                    reason TEXT COLLATE "C" NOT NULL,
                    payload TEXT COLLATE "C" NOT NULL,
                    signature TEXT COLLATE "C" NOT NULL
                );
                CREATE INDEX signature_receipt_by_user ON signature_receipt(user_id, signed_at);
                CREATE TRIGGER signature_receipt_no_update BEFORE UPDATE ON signature_receipt FOR EACH ROW
                    EXECUTE FUNCTION flowhost_refuse('signature receipts are append-only');
                CREATE TRIGGER signature_receipt_no_delete BEFORE DELETE ON signature_receipt FOR EACH ROW
                    EXECUTE FUNCTION flowhost_refuse('signature receipts are append-only');
                """)
        // FlowHost's countersignature (ReceiptIssuer): a receipt proves its issuance.
        migrator.registerMigration(
            "signatures/v2-issuer-countersignature",
            sqlite: """
                ALTER TABLE signature_receipt ADD COLUMN issuer_key_id TEXT;
                ALTER TABLE signature_receipt ADD COLUMN issuer_signature TEXT;
                """,
            postgres: """
                ALTER TABLE signature_receipt ADD COLUMN issuer_key_id TEXT COLLATE "C";
                ALTER TABLE signature_receipt ADD COLUMN issuer_signature TEXT COLLATE "C";
                """)
        // Append-only means TRUNCATE too; SQLite has no TRUNCATE.
        migrator.registerBaseline(
            "signatures/v3-no-truncate",
            sqlite: "",
            postgres: """
                CREATE TRIGGER signature_receipt_no_truncate BEFORE TRUNCATE ON signature_receipt FOR EACH STATEMENT
                    EXECUTE FUNCTION flowhost_refuse('signature receipts are append-only');
                """,
            replacing: ["postgres/v2-append-only-truncate"])
        // Each key's algorithm, for its life (DeviceKeyAlgorithm); every key
        // registered before there was a choice is Ed25519. A receipt keeps
        // its key's, as it keeps the key: the device's key may change later.
        // Adding a column with a constant default rewrites no row, so the
        // receipts' append-only triggers do not fire.
        migrator.registerMigration(
            "devices/v2-key-algorithm",
            sqlite: """
                ALTER TABLE device_key ADD COLUMN algorithm TEXT NOT NULL DEFAULT 'Ed25519';
                ALTER TABLE signature_receipt ADD COLUMN algorithm TEXT NOT NULL DEFAULT 'Ed25519';
                """,
            postgres: """
                ALTER TABLE device_key ADD COLUMN algorithm TEXT COLLATE "C" NOT NULL DEFAULT 'Ed25519';
                ALTER TABLE signature_receipt ADD COLUMN algorithm TEXT COLLATE "C" NOT NULL DEFAULT 'Ed25519';
                """)
            // WebAuthn devices (spec §14): the credential's id (hex), the
        // authenticator's signature counter, backup eligibility and state
        // (BE/BS) and AAGUID; null for every other key. A credential id is
        // one device's: the index finds another registration of it.
        migrator.registerMigration(
            "devices/v3-webauthn",
            sqlite: """
                ALTER TABLE device_key ADD COLUMN credential_id TEXT;
                ALTER TABLE device_key ADD COLUMN sign_count INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE device_key ADD COLUMN backup_eligible INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE device_key ADD COLUMN backup_state INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE device_key ADD COLUMN aaguid TEXT;
                CREATE INDEX device_key_by_credential ON device_key(credential_id) WHERE credential_id IS NOT NULL;
                ALTER TABLE signature_receipt ADD COLUMN authenticator_data TEXT;
                ALTER TABLE signature_receipt ADD COLUMN client_data_json TEXT;
                """,
            postgres: """
                ALTER TABLE device_key ADD COLUMN credential_id TEXT COLLATE "C";
                ALTER TABLE device_key ADD COLUMN sign_count BIGINT NOT NULL DEFAULT 0;
                ALTER TABLE device_key ADD COLUMN backup_eligible BIGINT NOT NULL DEFAULT 0;
                ALTER TABLE device_key ADD COLUMN backup_state BIGINT NOT NULL DEFAULT 0;
                ALTER TABLE device_key ADD COLUMN aaguid TEXT COLLATE "C";
                CREATE INDEX device_key_by_credential ON device_key(credential_id) WHERE credential_id IS NOT NULL;
                ALTER TABLE signature_receipt ADD COLUMN authenticator_data TEXT COLLATE "C";
                ALTER TABLE signature_receipt ADD COLUMN client_data_json TEXT COLLATE "C";
                """)
        // The issuer's key set (IssuerKeySet): the public half of every key
        // the deployment has signed receipts and session tokens with, and
        // its state. The partial unique indexes are what keep rotation safe
        // across hosts and machines: one active key, one staged at most.
        migrator.registerMigration(
            "signatures/v4-issuer-key-set",
            sqlite: """
                CREATE TABLE issuer_key (
                    key_id TEXT PRIMARY KEY NOT NULL,
                    public_key TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('staged', 'active', 'retired', 'withdrawn')),
                    created_at INTEGER NOT NULL,
                    activated_at INTEGER,
                    retired_at INTEGER,
                    withdrawn_at INTEGER,
                    withdrawn_reason TEXT
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX issuer_key_one_active ON issuer_key(state) WHERE state = 'active';
                CREATE UNIQUE INDEX issuer_key_one_staged ON issuer_key(state) WHERE state = 'staged';
                """,
            postgres: """
                CREATE TABLE issuer_key (
                    key_id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                    public_key TEXT COLLATE "C" NOT NULL,
                    state TEXT COLLATE "C" NOT NULL CHECK (state IN ('staged', 'active', 'retired', 'withdrawn')),
                    created_at BIGINT NOT NULL,
                    activated_at BIGINT,
                    retired_at BIGINT,
                    withdrawn_at BIGINT,
                    withdrawn_reason TEXT COLLATE "C"
                );
                CREATE UNIQUE INDEX issuer_key_one_active ON issuer_key(state) WHERE state = 'active';
                CREATE UNIQUE INDEX issuer_key_one_staged ON issuer_key(state) WHERE state = 'staged';
                """)
}
}
