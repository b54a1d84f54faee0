import FlowHostStore

/// Frozen history. Before 1.1 the accounts', credentials', sessions', audit's
/// and outbox's tables were made together by three migrations named
/// `credentials/v1…v3`. A store that has the first of them gets the other
/// two here, unchanged, so that it holds exactly what each domain's baseline
/// makes; the baselines are then recorded without running. A new store runs
/// none of this. Never edit these: stores in the field have applied them.
enum LegacyAccountsSchema {
    static func register(in migrator: inout SchemaMigrator) {
        migrator.registerLegacyStep(
            "credentials/v2-state-checks", after: "credentials/v1-accounts",
            sqlite: """
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

                """,
            postgres: """
                -- A client's resend supersedes a code; the operator's re-issue retires it (used_at).
                ALTER TABLE activation_code ADD COLUMN superseded_at BIGINT;
                -- Accepting a code hands the flow a grant (kept hashed) that completes activation once.
                ALTER TABLE activation_code ADD COLUMN grant_hash TEXT COLLATE "C";
                ALTER TABLE activation_code ADD COLUMN grant_spent_at BIGINT;
                -- A code for an active user's new device (the fallback of device activation): bound to that device,
                -- retired after a few wrong tries of its own (the user's attempts are not touched).
                ALTER TABLE activation_code ADD COLUMN for_device TEXT COLLATE "C";
                ALTER TABLE activation_code ADD COLUMN wrong_tries BIGINT NOT NULL DEFAULT 0;
                ALTER TABLE "user" ADD COLUMN resend_window_start BIGINT;
                ALTER TABLE "user" ADD COLUMN resend_count BIGINT NOT NULL DEFAULT 0;
                ALTER TABLE session ADD COLUMN last_seen_at BIGINT;
                ALTER TABLE session ADD COLUMN end_reason TEXT COLLATE "C";
                UPDATE session SET last_seen_at = created_at;
                -- Open sessions only: the lifetime sweep at each login reads these, never the history.
                CREATE INDEX session_open_by_user ON session(user_id) WHERE ended_at IS NULL;
                CREATE INDEX session_open_by_created ON session(created_at) WHERE ended_at IS NULL;
                CREATE INDEX session_open_by_seen ON session(last_seen_at) WHERE ended_at IS NULL;
                -- Delivery happens after the commit, outside any transaction, with retries.
                ALTER TABLE outbox ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;
                ALTER TABLE outbox ADD COLUMN last_error TEXT COLLATE "C";
                ALTER TABLE outbox ADD COLUMN next_attempt_at BIGINT;
                ALTER TABLE outbox ADD COLUMN lease_until BIGINT;
                ALTER TABLE outbox ADD COLUMN failed_at BIGINT;
                -- Events anyone can cause without proof are counted per hour, not logged one row each.
                CREATE TABLE audit_count (
                    hour BIGINT NOT NULL,
                    user_id TEXT COLLATE "C" NOT NULL,
                    action TEXT COLLATE "C" NOT NULL,
                    outcome TEXT COLLATE "C" NOT NULL,
                    count BIGINT NOT NULL,
                    last_at BIGINT NOT NULL,
                    PRIMARY KEY (hour, user_id, action, outcome)
                );
                CREATE TRIGGER audit_count_no_delete BEFORE DELETE ON audit_count FOR EACH ROW EXECUTE FUNCTION flowhost_refuse('audit is append-only');
                CREATE TRIGGER audit_count_only_grows BEFORE UPDATE ON audit_count FOR EACH ROW WHEN (NEW.count < OLD.count OR NEW.hour != OLD.hour OR NEW.user_id != OLD.user_id
                         OR NEW.action != OLD.action OR NEW.outcome != OLD.outcome) EXECUTE FUNCTION flowhost_refuse('audit is append-only');
                """)
        migrator.registerLegacyStep(
            "credentials/v3-counter-retention", after: "credentials/v1-accounts",
            sqlite: """
                DROP TRIGGER audit_count_no_delete;
                CREATE TRIGGER audit_count_no_delete BEFORE DELETE ON audit_count
                    WHEN OLD.hour > CAST(strftime('%s', 'now') AS INTEGER) - 7776000
                    BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;

                """,
            postgres: """
                DROP TRIGGER audit_count_no_delete ON audit_count;
                CREATE TRIGGER audit_count_no_delete BEFORE DELETE ON audit_count FOR EACH ROW
                    WHEN (OLD.hour > EXTRACT(EPOCH FROM now())::BIGINT - 7776000) EXECUTE FUNCTION flowhost_refuse('audit is append-only');
                """)
    }
}
