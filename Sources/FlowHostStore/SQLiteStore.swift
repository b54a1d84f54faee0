import FlowHostPOSIX

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
    private let lock = Lock()

    /// Opens (creating with mode 0600 if needed) and migrates the store to
    /// `schema` (the domains' tables; the change feed's are added).
    public init(path: String, schema: SchemaMigrator, busyTimeoutSeconds: Double = 10) throws {
        // Something shaped like a URL is never a file name: it would create
        // folders named after its parts (a password among them).
        guard PostgresStore.scheme(of: path) == nil else { throw StoreError("the store location is a URL, not a SQLite file path") }
        self.path = path
        try Self.createPrivately(path)
        try PrivateFile.check([path, path + "-wal", path + "-shm"])
        let timeout = Int32(busyTimeoutSeconds * 1000)
        connection = try Self.retryingBusy { try Self.connect(path, busyTimeoutMilliseconds: timeout) }
        busyTimeoutMilliseconds = timeout
        let all = SchemaMigrator.withStoreTables(schema)
        try Self.retryingBusy { try Self.migrate(connection, all) }
    }

    /// Runs `body` again while SQLite says busy, a few times, briefly. Some
    /// lock waits never reach the busy handler: switching a fresh file to
    /// WAL, or a reader that must become the writer while another process
    /// writes, fail at once rather than deadlock. Hosts starting together
    /// on a fresh store meet exactly these; each tries again shortly.
    private static func retryingBusy<T>(_ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do { return try body() } catch let error as SQLiteError where error.isBusy && attempt < 20 {
                attempt += 1
                usleep(UInt32(20_000 + attempt * 10_000))
            }
        }
    }

    private init(path: String, connection: SQLiteConnection, busyTimeoutMilliseconds: Int32) {
        self.path = path
        self.connection = connection
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    private let busyTimeoutMilliseconds: Int32

    private static func connect(_ path: String, busyTimeoutMilliseconds: Int32) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        // WAL: readers in other processes never block on a writer; its files
        // stay between starts, emptied (SQLiteConnection.keepWALFiles). Past
        // a checkpoint the WAL is written again from its start and keeps its
        // size, up to 64 MiB: a limit of 0 here cut it back after every
        // checkpoint, and each append then grew the file. Deleted
        // rows (old codes, pruned hashes) are overwritten, not left in free pages.
        // Pages are read with `pread` into SQLite's page cache, not through a
        // shared mapping: a host that has just started (a new device's, an
        // approval's) faults in every page it touches, and on a store with
        // history behind it those pages lie farther apart, so fewer come in
        // together with a neighbour, and an aged store's requests cost more
        // than a fresh one's (docs/performance.md, "The store"). Set to 0,
        // not left to the build's default.
        try connection.execute(
            "PRAGMA journal_mode = WAL; PRAGMA journal_size_limit = 67108864; PRAGMA secure_delete = ON; PRAGMA foreign_keys = ON; PRAGMA mmap_size = 0;")
        try connection.keepWALFiles()
        return connection
    }

    /// A second connection to the file, through SQLite alone: nothing here
    /// may open and close the file itself, because closing any descriptor
    /// of it drops every POSIX lock this process holds on it, the first
    /// connection's included. The file is already made, checked and migrated.
    public func newConnection() throws -> any FlowStore {
        let timeout = busyTimeoutMilliseconds
        return SQLiteStore(path: path, connection: try Self.retryingBusy { try Self.connect(path, busyTimeoutMilliseconds: timeout) }, busyTimeoutMilliseconds: timeout)
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
        if let folder = path.folderPart, !folder.isEmpty { try PrivateFile.makeFolders(folder) }
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError("cannot create \(path): \(String(cString: strerror(errno)))") }
        close(fd)
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
    private func transaction<T>(_ begin: String, synchronous: String?, _ body: (SQLTransaction) throws -> T) throws -> T {
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

    private func transactionOnce<T>(_ begin: String, synchronous: String?, _ body: (SQLTransaction) throws -> T) throws -> T {
        try lock.withLock {
            if let synchronous, synchronous != currentSynchronous {
                try connection.execute("PRAGMA synchronous = \(synchronous)")
                currentSynchronous = synchronous
            }
            // Prepared once and kept, like every other statement: compiling
            // BEGIN and COMMIT from text each time cost more than the reads.
            try connection.run(begin)
            // A write's handlers; a read cannot change anything to undo.
            let handlers = synchronous == nil ? nil : TransactionHandlers()
            do {
                let result = try body(SQLTransaction(db: connection, handlers: handlers))
                try connection.run("COMMIT")
                handlers?.committed()
                return result
            } catch {
                // A COMMIT that failed left the transaction open or rolled it
                // back; either way, after this ROLLBACK nothing of it is stored.
                _ = try? connection.run("ROLLBACK")
                handlers?.rolledBack()
                throw error
            }
        }
    }

    // MARK: Schema

    /// The schema's migrations, applied once each, in order, under the write lock.
    static func migrate(_ connection: SQLiteConnection, _ schema: SchemaMigrator) throws {
        try connection.execute("CREATE TABLE IF NOT EXISTS schema_migration (name TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)")
        func applied() throws -> Set<String> { Set(try connection.query("SELECT name FROM schema_migration", []) { $0.string(0) }) }
        guard !schema.plan(applied: try applied(), dialect: .sqlite).isEmpty else { return }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            // Read again under the lock: another process may have migrated meanwhile.
            for step in schema.plan(applied: try applied(), dialect: .sqlite) {
                if let sql = step.sql, !sql.isEmpty { try connection.execute(sql) }
                try connection.run("INSERT INTO schema_migration (name, applied_at) VALUES (?, ?)", [.text(step.name), .integer(Int64(time(nil)))])
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
