#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The default store: one SQLite file in WAL mode, on SQLite's C API.
///
/// Several `flowhost` processes may open the same file at once (each one is a
/// device of the same deployment): every write runs in an IMMEDIATE
/// transaction, so it takes SQLite's write lock before it reads, and a
/// process that finds the lock taken waits (busy timeout) instead of failing.
/// One connection per process: the host is single-threaded.
///
/// `@unchecked Sendable`: the connection and `currentSynchronous` are only
/// touched inside `read` and `write`, which hold `lock` for the whole transaction.
public final class SQLiteStore: FlowStore, @unchecked Sendable {
    public let path: String
    private let connection: SQLiteConnection
    private let lock = StoreLock()

    /// Opens (creating with mode 0600 if needed) and migrates the store.
    public init(path: String, busyTimeoutSeconds: Double = 10) throws {
        self.path = path
        try Self.createPrivately(path)
        try PrivateFile.check([path, path + "-wal", path + "-shm"])
        connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: Int32(busyTimeoutSeconds * 1000))
        // WAL: readers in other processes never block on a writer. Deleted
        // rows (old codes, pruned hashes) are overwritten, not left in free pages.
        try connection.execute("PRAGMA journal_mode = WAL; PRAGMA secure_delete = ON; PRAGMA foreign_keys = ON;")
        try Self.migrate(connection)
    }

    /// The default location: `$XDG_DATA_HOME/flowhost/flowhost.sqlite`, or
    /// `~/.local/share/flowhost/flowhost.sqlite`.
    public static func defaultPath() -> String {
        let base: String
        if let data = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), !data.isEmpty {
            base = data
        } else {
            base = (getenv("HOME").map { String(cString: $0) } ?? "/tmp") + "/.local/share"
        }
        return base + "/flowhost/flowhost.sqlite"
    }

    private static func createPrivately(_ path: String) throws {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeFolders(String(path[..<slash]))
        }
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError("cannot create \(path): \(String(cString: strerror(errno)))") }
        close(fd)
    }

    /// `mkdir -p` with mode 0700 for the folders it creates.
    private static func makeFolders(_ folder: String) throws {
        var current = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o700) != 0, errno != EEXIST {
                throw StoreError("cannot create \(current): \(String(cString: strerror(errno)))")
            }
        }
    }

    public func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try transaction("BEGIN DEFERRED", synchronous: nil, body)
    }

    public func write<T>(durability: Durability, _ body: (any StoreWriter) throws -> T) throws -> T {
        try transaction("BEGIN IMMEDIATE", synchronous: durability == .full ? "FULL" : "NORMAL", body)
    }

    /// The safety level can only change between transactions, so it is set
    /// before each write (and only when it differs from the last one).
    private var currentSynchronous = ""

    /// How often a transaction that met a locked database is run again, and
    /// the first pause between runs (doubled each time, with jitter). With the
    /// busy timeout each run waits first, so a client waits at most about
    /// `busyRetries + 1` busy timeouts before it gets a generic error.
    static let busyRetries = 2
    static let firstBusyPauseMicroseconds: UInt32 = 20_000

    /// Runs a transaction; a locked database (another process held the write
    /// lock past the busy timeout, or a snapshot went stale) runs the whole
    /// body again after a short pause, a bounded number of times.
    private func transaction<T>(_ begin: String, synchronous: String?, _ body: (SQLiteTransaction) throws -> T) throws -> T {
        var pause = Self.firstBusyPauseMicroseconds
        for attempt in 0... {
            do {
                return try transactionOnce(begin, synchronous: synchronous, body)
            } catch let error as SQLiteError where error.isBusy && attempt < Self.busyRetries {
                usleep(pause + UInt32.random(in: 0..<pause))
                pause *= 2
            }
        }
        fatalError("unreachable")
    }

    private func transactionOnce<T>(_ begin: String, synchronous: String?, _ body: (SQLiteTransaction) throws -> T) throws -> T {
        try lock.withLock {
            if let synchronous, synchronous != currentSynchronous {
                try connection.execute("PRAGMA synchronous = \(synchronous)")
                currentSynchronous = synchronous
            }
            try connection.execute(begin)
            do {
                let result = try body(SQLiteTransaction(db: connection))
                try connection.execute("COMMIT")
                return result
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    // MARK: Schema

    /// Named migrations, applied once each, in order, under the write lock.
    static let migrations: [(name: String, sql: String)] = [
        ("v1-accounts", """
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
        ("v2-state-checks", """
                    -- A client's resend supersedes a code; the operator's re-issue retires it (used_at).
                    ALTER TABLE activation_code ADD COLUMN superseded_at INTEGER;
                    -- Accepting a code hands the flow a grant (kept hashed) that completes activation once.
                    ALTER TABLE activation_code ADD COLUMN grant_hash TEXT;
                    ALTER TABLE activation_code ADD COLUMN grant_spent_at INTEGER;
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
    ]

    static func migrate(_ connection: SQLiteConnection) throws {
        try connection.execute("CREATE TABLE IF NOT EXISTS schema_migration (name TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)")
        // Stores made by the first builds (GRDB's migrator) list their migrations elsewhere.
        let legacy = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'", []) { $0.string(0) }
        if !legacy.isEmpty {
            try connection.run("INSERT OR IGNORE INTO schema_migration (name, applied_at) SELECT identifier, 0 FROM grdb_migrations", [])
        }
        let applied = Set(try connection.query("SELECT name FROM schema_migration", []) { $0.string(0) })
        guard migrations.contains(where: { !applied.contains($0.name) }) else { return }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            // Read again under the lock: another process may have migrated meanwhile.
            let current = Set(try connection.query("SELECT name FROM schema_migration", []) { $0.string(0) })
            for migration in migrations where !current.contains(migration.name) {
                try connection.execute(migration.sql)
                try connection.run("INSERT INTO schema_migration (name, applied_at) VALUES (?, ?)", [.text(migration.name), .integer(Int64(time(nil)))])
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}

/// A mutex for the store's one connection.
final class StoreLock: @unchecked Sendable {
    // @unchecked Sendable: the mutex is the synchronisation; it is allocated
    // once and destroyed in deinit, when nothing can hold it.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
