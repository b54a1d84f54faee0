import FlowHostPOSIX
import Foundation
import Testing
@testable import FlowHostStore

/// The store's own machinery, on a table of the test's own: the domains'
/// tables and SQL are tested in their modules.
@Suite struct SQLiteStoreTests {
    /// The test's own folder, removed with the suite's instance.
    let scratch: TemporaryFolder
    init() throws { scratch = try TemporaryFolder() }

    /// A store path not made yet, two folders down (the store makes them).
    private func temporaryPath() -> String {
        scratch.path + "/\(UUID().uuidString)/nested/store.sqlite"
    }

    static let schema = SchemaMigrator({ migrator in
        migrator.registerMigration(
            "test/v1-counters", sqlite: "CREATE TABLE counter (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);",
            postgres: "CREATE TABLE counter (name TEXT PRIMARY KEY NOT NULL, value BIGINT NOT NULL);")
    })

    private func open(_ path: String, busyTimeoutSeconds: Double = 10) throws -> SQLiteStore {
        try SQLiteStore(path: path, schema: Self.schema, busyTimeoutSeconds: busyTimeoutSeconds)
    }

    @Test func createdPrivately() throws {
        let path = temporaryPath()
        _ = try open(path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
    }

    /// A statement after the one marked last is refused here too, as on
    /// PostgreSQL (where the COMMIT went with the marked one), and the
    /// transaction is rolled back.
    @Test func aStatementAfterTheOneMarkedLastIsRefused() throws {
        let store = try open(temporaryPath())
        #expect(throws: StoreError.statementAfterLast) {
            try store.write { tx in
                _ = try tx.lastStatement { try tx.run("INSERT INTO counter (name, value) VALUES ('last', 1)", []) }
                _ = try tx.run("INSERT INTO counter (name, value) VALUES ('after', 2)", [])
            }
        }
        #expect(try store.read { tx in try tx.query("SELECT name FROM counter", []) { $0.string(0) } } == [])
        try store.write { tx in
            _ = try tx.run("INSERT INTO counter (name, value) VALUES ('a', 1)", [])
            _ = try tx.lastStatement { try tx.run("INSERT INTO counter (name, value) VALUES ('b', 2)", []) }
        }
        #expect(try store.read { tx in try tx.query("SELECT name FROM counter ORDER BY name", []) { $0.string(0) } } == ["a", "b"])
    }

    /// A deferred write runs at once on SQLite (its next statement sees
    /// it), and after the statement marked last it is refused, as on
    /// PostgreSQL.
    @Test func aDeferredWriteRunsAtOnceAndNotAfterTheLast() throws {
        let store = try open(temporaryPath())
        let seen = try store.write { tx in
            try tx.runDeferred("INSERT INTO counter (name, value) VALUES (?, ?)", [.text("d"), .integer(1)])
            return try tx.query("SELECT value FROM counter WHERE name = 'd'", []) { $0.int64(0) }
        }
        #expect(seen == [1])
        #expect(throws: StoreError.statementAfterLast) {
            try store.write { tx in
                _ = try tx.lastStatement { try tx.run("INSERT INTO counter (name, value) VALUES ('last', 1)", []) }
                try tx.runDeferred("INSERT INTO counter (name, value) VALUES ('after', 2)", [])
            }
        }
        #expect(try store.read { tx in try tx.query("SELECT name FROM counter", []) { $0.string(0) } } == ["d"])
    }

    /// Prefetching sends nothing on SQLite, but keeps PostgreSQL's rules: a
    /// prefetch marked last lets only its own queries follow.
    @Test func aPrefetchMarkedLastLetsOnlyItsQueriesFollow() throws {
        let store = try open(temporaryPath())
        let answered = try store.read { tx in
            try tx.lastStatement { try tx.prefetch([StoreQuery("SELECT 1", [])]) }
            return try tx.query("SELECT 1", []) { $0.int64(0) }
        }
        #expect(answered == [1])
        #expect(throws: StoreError.statementAfterLast) {
            try store.read { tx in
                try tx.lastStatement { try tx.prefetch([StoreQuery("SELECT 1", [])]) }
                _ = try tx.query("SELECT 1", []) { $0.int64(0) }
                _ = try tx.query("SELECT 1", []) { $0.int64(0) }
            }
        }
    }

    /// Memory statistics are off before the first open (no mutex per allocation).
    @Test func sqliteCountsNoMemory() throws {
        let store = try open(temporaryPath())
        _ = try store.write { tx in try tx.run("INSERT INTO counter (name, value) VALUES ('m', 1)", []) }
        #expect(SQLiteConnection.memoryCounted == 0)
    }

    /// Pages are read into SQLite's cache, never through a mapping of the
    /// file (SQLiteStore.connect: a host just started would fault in each
    /// page it touches, more of them on a store with history).
    @Test func theStoreIsReadWithoutMappingTheFile() throws {
        let path = temporaryPath()
        let store = try open(path)
        let second = try store.newConnection()
        try store.write { tx in
            for index in 0..<200 { try tx.run("INSERT INTO counter (name, value) VALUES (?, ?)", [.text("row-\(index)"), .integer(Int64(index))]) }
        }
        for reader in [store, second] as [any FlowStore] {
            #expect(try reader.read { try $0.query("PRAGMA mmap_size", []) { $0.int64(0) } } == [0])
            #expect(try reader.read { try $0.query("SELECT sum(value) FROM counter", []) { $0.int64(0) } } == [19_900])
        }
        #if os(Linux)
        // The WAL's index (`-shm`) is shared memory by design, and its line
        // shows this reads the right mappings; the database file is not
        // mapped. Both connections stay open meanwhile: the last close
        // unmaps the index. (Foundation's String(contentsOfFile:) reads only
        // the first 4 KiB of a /proc file, which says its size is 0.)
        let maps = try withExtendedLifetime((store, second)) {
            String(utf8: try SystemFile.read("/proc/self/maps")).split(separator: "\n")
        }
        #expect(maps.contains { $0.hasSuffix(" " + path + "-shm") }, "the WAL index's mapping was not found: this test reads the wrong lines")
        #expect(!maps.contains { $0.hasSuffix(" " + path) }, "the store file is mapped")
        #endif
    }

    @Test func failedTransactionLeavesNothing() throws {
        let store = try open(temporaryPath())
        #expect(throws: StoreError.self) {
            try store.write { tx in
                try tx.run("INSERT INTO counter (name, value) VALUES ('u', 1)", [])
                throw StoreError("abort")
            }
        }
        #expect(try store.read { try $0.query("SELECT value FROM counter", []) { $0.int(0) } }.isEmpty)
    }

    @Test func twoConnectionsCountWithoutLosingUpdates() throws {
        let path = temporaryPath()
        let first = try open(path)
        let second = try open(path)
        try first.write { _ = try $0.run("INSERT INTO counter (name, value) VALUES ('u', 400)", []) }
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let store = index == 0 ? first : second
            for _ in 0..<100 {
                // Read, then write what was read minus one: a lost update would leave more than 200.
                try! store.write { tx in
                    let value = try tx.query("SELECT value FROM counter WHERE name = 'u'", []) { $0.int64(0) }[0]
                    try tx.run("UPDATE counter SET value = ? WHERE name = 'u'", [.integer(value - 1)])
                }
            }
        }
        #expect(try first.read { try $0.query("SELECT value FROM counter WHERE name = 'u'", []) { $0.int(0) } } == [200])
    }

    @Test func aLockedDatabaseIsRetriedThenReportedAsBusy() throws {
        let path = temporaryPath()
        let store = try open(path, busyTimeoutSeconds: 0.05)
        let holder = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 0)
        try holder.execute("BEGIN IMMEDIATE")
        let started = DispatchTime.now()
        #expect { try store.write { try $0.run("INSERT INTO counter (name, value) VALUES ('u', 1)", []) } }
            throws: { ($0 as? SQLiteError)?.isBusy == true }
        let waited = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        #expect(waited >= 0.15, "three runs of 50 ms each, with pauses")
        try holder.execute("COMMIT")
        // Freed after the first run gave up (busy timeout 200 ms, freed at
        // 250 ms, on a thread of its own so a busy test runner cannot delay
        // it much): a retry goes through.
        let retrying = try open(path, busyTimeoutSeconds: 0.2)
        try holder.execute("BEGIN IMMEDIATE")
        // nonisolated(unsafe): the other thread is the only user of the connection from here on.
        nonisolated(unsafe) let releasing = holder
        Thread.detachNewThread {
            usleep(250_000)
            try? releasing.execute("COMMIT")
        }
        try retrying.write { _ = try $0.run("INSERT INTO counter (name, value) VALUES ('u', 1)", []) }
        #expect(try store.read { try $0.query("SELECT value FROM counter", []) { $0.int(0) } } == [1])
    }

    @Test func commitHandlersRunOnlyAfterTheCommit() throws {
        try RollbackHandlerChecks.commitHandlersRunOnlyAfterCommit(
            try open(temporaryPath()), insert: "INSERT OR REPLACE INTO counter (name, value) VALUES ('c', 1)",
            retryable: SQLiteError(code: 5, message: "database is locked"))
    }

    @Test func rollbackHandlersRunOnlyWhenTheTransactionDoesNotCommit() throws {
        try RollbackHandlerChecks.runOnlyWithoutCommit(try open(temporaryPath()), insert: "INSERT INTO counter (name, value) VALUES ('u', 1)")
    }

    @Test func aBusyAttemptIsUndoneBeforeTheBodyRunsAgain() throws {
        try RollbackHandlerChecks.undoneBeforeTheBodyRunsAgain(try open(temporaryPath()), retryable: SQLiteError(code: 5, message: "database is locked"))
    }
}
