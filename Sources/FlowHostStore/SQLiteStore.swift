import Foundation
import GRDB

/// The default store: one SQLite file in WAL mode, through GRDB.
///
/// Several `flowhost` processes may open the same file at once (each one is a
/// device of the same deployment): every write runs in an IMMEDIATE
/// transaction, so it takes SQLite's write lock before it reads, and a
/// process that finds the lock taken waits (busy timeout) instead of failing.
///
/// One connection per process (a `DatabaseQueue` on a WAL file): the host is
/// single-threaded, so a pool's extra reader connections would only add
/// start-up time and a page cache each.
///
/// `Sendable`: the only state is the `DatabaseQueue`, which is itself
/// thread-safe.
public final class SQLiteStore: FlowStore {
    public let path: String
    private let pool: DatabaseQueue

    /// Opens (creating with mode 0600 if needed) and migrates the store.
    public init(path: String, busyTimeoutSeconds: Double = 10) throws {
        self.path = path
        try Self.createPrivately(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeoutSeconds)
        configuration.prepareDatabase { db in
            // WAL: readers in other processes never block on a writer.
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            // Deleted rows (old codes, pruned hashes) are overwritten, not left in free pages.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        pool = try DatabaseQueue(path: path, configuration: configuration)
        // Most starts find the schema current: check with a read, and take
        // the write lock only to migrate.
        if try !pool.read({ try Self.migrator.hasCompletedMigrations($0) }) {
            try Self.migrator.migrate(pool)
        }
    }

    /// The default location: `$XDG_DATA_HOME/flowhost/flowhost.sqlite`, or
    /// `~/.local/share/flowhost/flowhost.sqlite`.
    public static func defaultPath() -> String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return ((base as NSString).appendingPathComponent("flowhost") as NSString).appendingPathComponent("flowhost.sqlite")
    }

    private static func createPrivately(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError("cannot create \(path): \(String(cString: strerror(errno)))") }
        close(fd)
    }

    public func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try pool.read { db in try body(SQLiteTransaction(db: db)) }
    }

    public func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        try pool.writeWithoutTransaction { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(SQLiteTransaction(db: db))
                return .commit
            }
            return result!
        }
    }

    // MARK: Schema

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-accounts") { db in
            try db.execute(
                sql: """
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
                    """)
        }
        return migrator
    }
}
