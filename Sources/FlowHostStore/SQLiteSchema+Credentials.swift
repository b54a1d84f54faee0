/// The credentials module's tables: users, devices, passwords, codes,
/// sessions, the audit log and its counts, the outbox.
extension SQLiteSchemaModule {
    static let credentials = SQLiteSchemaModule(name: "credentials", migrations: [
        (id: "v1-accounts", sql: """
                    CREATE TABLE user (
                        user_id TEXT PRIMARY KEY NOT NULL,
                        status TEXT NOT NULL,
                        block_reason TEXT,
                        activation_attempts_left INTEGER NOT NULL,
                        password_attempts_left INTEGER NOT NULL,
                        password_expired INTEGER NOT NULL DEFAULT 0,
                        created_at INTEGER NOT NULL,
                        last_resend_at INTEGER
                    );
                    CREATE TABLE device (
                        user_id TEXT NOT NULL REFERENCES user(user_id),
                        device_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        status TEXT NOT NULL,
                        lda_type INTEGER,
                        created_at INTEGER NOT NULL,
                        last_access_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, device_id)
                    );
                    CREATE INDEX device_by_device ON device(device_id);
                    CREATE TABLE password (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id TEXT NOT NULL REFERENCES user(user_id),
                        hash TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE INDEX password_by_user ON password(user_id, id);
                    CREATE TABLE activation_code (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id TEXT NOT NULL REFERENCES user(user_id),
                        code_hash TEXT NOT NULL,
                        verification_key TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        used_at INTEGER
                    );
                    CREATE INDEX activation_code_by_user ON activation_code(user_id, id);
                    CREATE TABLE session (
                        session_id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES user(user_id),
                        device_id TEXT NOT NULL,
                        workflow TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        ended_at INTEGER
                    );
                    CREATE INDEX session_by_device ON session(device_id, created_at);
                    CREATE TABLE audit (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        at INTEGER NOT NULL,
                        user_id TEXT,
                        device_id TEXT,
                        action TEXT NOT NULL,
                        outcome TEXT NOT NULL,
                        detail TEXT
                    );
                    -- The audit log is append-only: the database itself refuses changes.
                    CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
                    CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
                    CREATE TABLE outbox (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        sealed_body BLOB NOT NULL,
                        created_at INTEGER NOT NULL,
                        delivered_at INTEGER
                    );
                    """),
        (id: "v2-state-checks", sql: """
                    -- A client's resend supersedes a code; the operator's re-issue retires it (used_at).
                    ALTER TABLE activation_code ADD COLUMN superseded_at INTEGER;
                    -- Accepting a code hands the flow a grant (kept hashed) that completes activation once.
                    ALTER TABLE activation_code ADD COLUMN grant_hash TEXT;
                    ALTER TABLE activation_code ADD COLUMN grant_spent_at INTEGER;
                    -- A code for an active user's new device (the fallback of device activation): bound to that device,
                    -- retired after a few wrong tries of its own (the user's attempts are not touched).
                    ALTER TABLE activation_code ADD COLUMN for_device TEXT;
                    ALTER TABLE activation_code ADD COLUMN wrong_tries INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE user ADD COLUMN resend_window_start INTEGER;
                    ALTER TABLE user ADD COLUMN resend_count INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE session ADD COLUMN last_seen_at INTEGER;
                    ALTER TABLE session ADD COLUMN end_reason TEXT;
                    UPDATE session SET last_seen_at = created_at;
                    -- Open sessions only: the lifetime sweep at each login reads these, never the history.
                    CREATE INDEX session_open_by_user ON session(user_id) WHERE ended_at IS NULL;
                    CREATE INDEX session_open_by_created ON session(created_at) WHERE ended_at IS NULL;
                    CREATE INDEX session_open_by_seen ON session(last_seen_at) WHERE ended_at IS NULL;
                    -- Delivery happens after the commit, outside any transaction, with retries.
                    ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE outbox ADD COLUMN last_error TEXT;
                    ALTER TABLE outbox ADD COLUMN next_attempt_at INTEGER;
                    ALTER TABLE outbox ADD COLUMN lease_until INTEGER;
                    ALTER TABLE outbox ADD COLUMN failed_at INTEGER;
                    -- Events anyone can cause without proof are counted per hour, not logged one row each.
                    CREATE TABLE audit_count (
                        hour INTEGER NOT NULL,
                        user_id TEXT NOT NULL,
                        action TEXT NOT NULL,
                        outcome TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        last_at INTEGER NOT NULL,
                        PRIMARY KEY (hour, user_id, action, outcome)
                    ) WITHOUT ROWID;
                    CREATE TRIGGER audit_count_no_delete BEFORE DELETE ON audit_count BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
                    CREATE TRIGGER audit_count_only_grows BEFORE UPDATE ON audit_count
                        WHEN NEW.count < OLD.count OR NEW.hour != OLD.hour OR NEW.user_id != OLD.user_id
                             OR NEW.action != OLD.action OR NEW.outcome != OLD.outcome
                        BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
                    """),
        // Retention for the hourly counts: an hour older than 90 days may be
        // deleted (the operator's `retention.counterDays`, 90 at least);
        // younger ones stay append-only in the database itself.
        (id: "v3-counter-retention", sql: """
                    DROP TRIGGER audit_count_no_delete;
                    CREATE TRIGGER audit_count_no_delete BEFORE DELETE ON audit_count
                        WHEN OLD.hour > CAST(strftime('%s', 'now') AS INTEGER) - 7776000
                        BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
                    """),
    ])
}
