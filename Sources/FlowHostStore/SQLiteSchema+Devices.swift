/// The devices module: each device's public key, and the single-use
/// challenges (and the proofs they become) of possession.
extension SQLiteSchemaModule {
    static let devices = SQLiteSchemaModule(name: "devices", migrations: [
        (id: "v1-device-keys", sql: """
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
            """),
    ])
}
