import Foundation
import Testing
@testable import FlowHostStore

/// The PostgreSQL store's transaction machinery, on a database of a
/// throw-away cluster: `scripts/test.sh` runs these through
/// `Tests/EndToEnd/pgcluster.py`, which names it in FLOWHOST_TEST_POSTGRES_URL.
/// Without it they are skipped (the end-to-end suite covers the rest on
/// PostgreSQL).
private let testPostgresURL = ProcessInfo.processInfo.environment["FLOWHOST_TEST_POSTGRES_URL"]

@Suite(.enabled(if: testPostgresURL != nil, "needs FLOWHOST_TEST_POSTGRES_URL (scripts/test.sh sets it)"))
struct PostgresStoreTests {
    static let url = testPostgresURL

    /// A table of this test's own, so tests running at once do not meet.
    let table = "counter_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    let store: PostgresStore

    init() throws {
        store = try PostgresStore(url: Self.url!, schema: SchemaMigrator({ _ in }))
        try store.write { _ = try $0.run("CREATE TABLE \(table) (name TEXT PRIMARY KEY NOT NULL, value BIGINT NOT NULL)", []) }
    }

    @Test func rollbackHandlersRunOnlyWhenTheTransactionDoesNotCommit() throws {
        try RollbackHandlerChecks.runOnlyWithoutCommit(store, insert: "INSERT INTO \(table) (name, value) VALUES ('u', 1)")
    }

    @Test func commitHandlersRunOnlyAfterTheCommit() throws {
        try RollbackHandlerChecks.commitHandlersRunOnlyAfterCommit(
            store, insert: "INSERT INTO \(table) (name, value) VALUES ('c', 1) ON CONFLICT (name) DO NOTHING",
            retryable: PostgresError(sqlState: "40001", message: "could not serialize access"))
    }

    @Test func aConflictingAttemptIsUndoneBeforeTheBodyRunsAgain() throws {
        try RollbackHandlerChecks.undoneBeforeTheBodyRunsAgain(store, retryable: PostgresError(sqlState: "40001", message: "could not serialize access"))
    }

    /// A COMMIT whose connection is lost may have landed, so what the
    /// transaction took (a spent proof, say) must stay taken.
    @Test func aCommitWithAnUnknownOutcomeIsNotUndone() throws {
        let other = try PostgresConnection(conninfo: Self.url!)
        var undone = false
        #expect(throws: StoreError.unreachable) {
            try store.write { tx in
                tx.onRollback { undone = true }
                let backend = try tx.query("SELECT pg_backend_pid()", []) { $0.int64(0) }[0]
                _ = try other.query("SELECT pg_terminate_backend(CAST(? AS integer))", [.integer(backend)]) { _ in () }
                usleep(200_000)  // the backend exits before COMMIT is sent
            }
        }
        #expect(!undone)
        // A lost connection that failed a statement before COMMIT is known not
        // to have committed: undone. (A store of its own: this one waits out
        // its reconnection back-off.)
        let fresh = try PostgresStore(url: Self.url!, schema: SchemaMigrator({ _ in }))
        #expect(throws: StoreError.unreachable) {
            try fresh.write { tx in
                tx.onRollback { undone = true }
                let backend = try tx.query("SELECT pg_backend_pid()", []) { $0.int64(0) }[0]
                _ = try other.query("SELECT pg_terminate_backend(CAST(? AS integer))", [.integer(backend)]) { _ in () }
                usleep(200_000)
                try tx.run("INSERT INTO \(table) (name, value) VALUES ('v', 1)", [])
            }
        }
        #expect(undone)
    }

    /// A transaction's BEGIN goes in the pipeline of its first statement:
    /// that statement's own failure is what the caller sees (not the
    /// pipeline's), and the connection is left ready for the next one.
    @Test func aFirstStatementThatFailsReportsItsOwnErrorAndLeavesTheConnectionUsable() throws {
        #expect(throws: PostgresError.self) {
            try store.write { tx in _ = try tx.run("INSERT INTO missing_\(table) (name) VALUES ('x')", []) }
        }
        do {
            try store.write { tx in _ = try tx.run("INSERT INTO missing_\(table) (name) VALUES ('x')", []) }
        } catch let error as PostgresError {
            #expect(error.sqlState == "42P01" && error.severity == "ERROR", "\(error)")
        }
        try store.write { tx in _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('after', 1)", []) }
        let value = try store.read { tx in try tx.query("SELECT value FROM \(table) WHERE name = 'after'", []) { $0.int64(0) } }
        #expect(value == [1])
    }

    /// Each write is one transaction whatever its first statement, at the
    /// isolation it asked for, with its durability set inside it.
    @Test func theDeferredBeginOpensTheTransactionItsStatementsShare() throws {
        let seen = try store.write { tx in
            try tx.query("SELECT current_setting('transaction_isolation'), current_setting('synchronous_commit'), txid_current()", []) {
                ($0.string(0), $0.string(1), $0.int64(2))
            }[0]
        }
        #expect(seen.0 == "serializable" && seen.1 == "on")
        let same = try store.write(durability: .relaxed) { tx in
            let first = try tx.query("SELECT txid_current()", []) { $0.int64(0) }[0]
            let second = try tx.query("SELECT txid_current(), current_setting('synchronous_commit')", []) { ($0.int64(0), $0.string(1)) }[0]
            return (first, second)
        }
        #expect(same.0 == same.1.0 && same.1.1 == "off")
        let read = try store.read { tx in try tx.query("SELECT current_setting('transaction_isolation'), current_setting('transaction_read_only')", []) { ($0.string(0), $0.string(1)) }[0] }
        #expect(read.0 == "repeatable read" && read.1 == "on")
    }

    /// A one-statement write's COMMIT goes with its statement: another
    /// connection sees the row as soon as the statement has answered, inside
    /// the body; the durability and isolation are set as for any write; and
    /// the connection is left outside any transaction for the next write.
    @Test func aOneStatementWriteCommitsWithItsStatement() throws {
        let other = try PostgresConnection(conninfo: Self.url!)
        var committed = false
        let (inserted, seenInside) = try store.writeOneStatement(durability: .relaxed) { tx in
            tx.onCommit { committed = true }
            let row = try tx.query(
                "INSERT INTO \(table) (name, value) VALUES (current_setting('synchronous_commit') || ' ' || current_setting('transaction_isolation'), 7) RETURNING name",
                []
            ) { $0.string(0) }[0]
            return (row, try other.query("SELECT value FROM \(table) WHERE name = ?", [.text(row)]) { $0.int64(0) })
        }
        #expect(inserted == "off serializable")
        #expect(seenInside == [7], "committed before the body returned")
        #expect(committed)
        let first = try store.write { tx in try tx.query("SELECT txid_current()", []) { $0.int64(0) }[0] }
        let second = try store.write { tx in try tx.query("SELECT txid_current()", []) { $0.int64(0) }[0] }
        #expect(first != second)
    }

    /// A one-statement write whose statement fails reports that statement's
    /// error, commits nothing, runs its rollback handlers and leaves the
    /// connection usable.
    @Test func aOneStatementWriteThatFailsCommitsNothing() throws {
        var undone = false
        do {
            try store.writeOneStatement(durability: .full) { tx in
                tx.onRollback { undone = true }
                _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('bad', NULL)", [])
            }
            Issue.record("a NULL in a NOT NULL column was accepted")
        } catch let error as PostgresError {
            #expect(error.sqlState == "23502", "\(error)")
        }
        #expect(undone)
        try store.writeOneStatement(durability: .full) { tx in _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('good', 1)", []) }
        let rows = try store.read { tx in try tx.query("SELECT name FROM \(table) ORDER BY name", []) { $0.string(0) } }
        #expect(rows == ["good"])
    }

    /// A body that fails after its one statement committed cannot undo it:
    /// the commit handlers run, not the rollback ones, and the row stays.
    @Test func aOneStatementWriteWhoseBodyFailsAfterItsCommitKeepsWhatItWrote() throws {
        struct Late: Error {}
        var committed = false
        var undone = false
        #expect(throws: Late.self) {
            try store.writeOneStatement(durability: .full) { tx in
                tx.onCommit { committed = true }
                tx.onRollback { undone = true }
                _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('kept', 1)", [])
                throw Late()
            }
        }
        #expect(committed && !undone)
        let rows = try store.read { tx in try tx.query("SELECT name FROM \(table)", []) { $0.string(0) } }
        #expect(rows == ["kept"])
    }

    /// A publish's append is one round trip, and its number is the feed's next.
    @Test func aFeedEventAppendedAloneIsCommittedAndNumbered() throws {
        let feedStore = try PostgresStore(url: Self.url!, schema: SchemaMigrator({ _ in }))
        let first = try feedStore.appendFeedEventAlone(topic: "echo.alone", payload: "{}", at: 1, durability: .relaxed)
        let second = try feedStore.appendFeedEventAlone(topic: "echo.alone", payload: "{}", at: 1, durability: .relaxed)
        #expect(second > first)
        let page = try feedStore.readFeed(after: first - 1, topics: ["echo.alone"], limit: 10)
        #expect(page.events.map(\.sequence) == [first, second])
    }

    /// A read's statement marked last carries its COMMIT: by the time it
    /// answers, the server holds no transaction open for this connection
    /// (through a pooler, its server connection may be serving `other`).
    @Test func aReadsLastStatementCommitsWithIt() throws {
        let other = try PostgresConnection(conninfo: Self.url!)
        func state(_ pid: Int64) throws -> String {
            try other.query("SELECT CASE WHEN pid = pg_backend_pid() THEN 'idle' ELSE state END FROM pg_stat_activity WHERE pid = ?", [.integer(pid)]) {
                $0.string(0)
            }.first ?? "gone"
        }
        let (before, after) = try store.read { tx in
            let pid = try tx.query("SELECT pg_backend_pid()", []) { $0.int64(0) }[0]
            let before = try state(pid)
            #expect(try tx.lastStatement { try tx.query("SELECT 1", []) { $0.int64(0) } } == [1], "the statement's own answer")
            return (before, try state(pid))
        }
        #expect(before == "idle in transaction")
        #expect(after == "idle", "committed with its last statement")
        #expect(try store.read { tx in try tx.query("SELECT current_setting('transaction_read_only')", []) { $0.string(0) } } == ["on"])
    }

    /// A write's statement marked last carries its COMMIT and its commit
    /// handlers run; a statement after it fails the body (the request), not
    /// the process, and what committed stays.
    @Test func aWritesLastStatementCommitsWithItAndNothingMayFollow() throws {
        let other = try PostgresConnection(conninfo: Self.url!)
        var committed = false
        var undone = false
        let seen = try store.write { tx in
            tx.onCommit { committed = true }
            tx.onRollback { undone = true }
            _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('first', 1)", [])
            _ = try tx.lastStatement { try tx.run("INSERT INTO \(table) (name, value) VALUES ('last', 2)", []) }
            return try other.query("SELECT name FROM \(table) ORDER BY name", []) { $0.string(0) }
        }
        #expect(seen == ["first", "last"], "committed before the body returned")
        #expect(committed && !undone)
        #expect(throws: StoreError.statementAfterLast) {
            try store.write { tx in
                _ = try tx.lastStatement { try tx.run("INSERT INTO \(table) (name, value) VALUES ('kept', 3)", []) }
                _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('after', 4)", [])
            }
        }
        let rows = try store.read { tx in try tx.query("SELECT name FROM \(table) ORDER BY name", []) { $0.string(0) } }
        #expect(rows == ["first", "kept", "last"])
    }

    /// A marked statement that fails leaves the connection usable for the next transaction.
    @Test func aLastStatementThatFailsLeavesTheConnectionUsable() throws {
        do {
            _ = try store.read { tx in try tx.lastStatement { try tx.query("SELECT 1 / 0", []) { $0.int64(0) } } }
            Issue.record("a division by zero answered")
        } catch let error as PostgresError {
            #expect(error.sqlState == "22012", "\(error)")
        }
        #expect(try store.read { tx in try tx.lastStatement { try tx.query("SELECT 2", []) { $0.int64(0) } } } == [2])
        #expect(try store.read { tx in try tx.query("SELECT 3", []) { $0.int64(0) } } == [3])
    }

    /// A marked body that sends no statement leaves the COMMIT to the store.
    @Test func aLastStatementThatSendsNothingLeavesTheCommitToTheStore() throws {
        try store.write { tx in
            _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('a', 1)", [])
            try tx.lastStatement { () }
            _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('b', 2)", [])
            _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('c', 3)", [])
        }
        let rows = try store.read { tx in try tx.query("SELECT name FROM \(table) ORDER BY name", []) { $0.string(0) } }
        #expect(rows == ["a", "b", "c"])
    }

    /// A deferred write is not sent until the transaction's next statement,
    /// which sees it: the table's lock is taken only then.
    @Test func aDeferredWriteGoesWithTheNextStatement() throws {
        let other = try PostgresConnection(conninfo: Self.url!)
        let (before, seen, after) = try store.write { tx in
            let pid = try tx.query("SELECT pg_backend_pid()", []) { $0.int64(0) }[0]
            func writeLocks() throws -> Int64 {
                try other.query(
                    "SELECT count(*) FROM pg_locks WHERE pid = ? AND relation = CAST(? AS regclass) AND mode = 'RowExclusiveLock'",
                    [.integer(pid), .text(table)]) { $0.int64(0) }[0]
            }
            try tx.runDeferred("INSERT INTO \(table) (name, value) VALUES (?, ?)", [.text("d"), .integer(7)])
            let before = try writeLocks()
            let seen = try tx.query("SELECT value FROM \(table) WHERE name = 'd'", []) { $0.int64(0) }
            return (before, seen, try writeLocks())
        }
        #expect(before == 0, "not sent with its own call")
        #expect(seen == [7], "sent ahead of the next statement")
        #expect(after == 1)
    }

    /// Deferred writes left at the end go with the COMMIT (and with the
    /// BEGIN, when they are all the transaction sends); inside a marked
    /// last statement's body they go ahead of it, and after it they are refused.
    @Test func deferredWritesAtTheEndGoWithTheCommit() throws {
        var committed = 0
        try store.write { tx in
            tx.onCommit { committed += 1 }
            _ = try tx.query("SELECT 1", []) { $0.int64(0) }
            try tx.runDeferred("INSERT INTO \(table) (name, value) VALUES ('a', 1)", [])
            try tx.runDeferred("UPDATE \(table) SET value = value + 1 WHERE name = ?", [.text("a")])
        }
        try store.write { tx in
            tx.onCommit { committed += 1 }
            try tx.runDeferred("INSERT INTO \(table) (name, value) VALUES ('b', 1)", [])
        }
        let other = try PostgresConnection(conninfo: Self.url!)
        let seen = try store.write { tx in
            _ = try tx.lastStatement {
                try tx.runDeferred("INSERT INTO \(table) (name, value) VALUES ('c', 1)", [])
                return try tx.query("SELECT 1", []) { $0.int64(0) }
            }
            return try other.query("SELECT name FROM \(table) WHERE name = 'c'", []) { $0.string(0) }
        }
        #expect(seen == ["c"], "committed with the marked statement")
        #expect(committed == 2)
        #expect(throws: StoreError.statementAfterLast) {
            try store.write { tx in
                _ = try tx.lastStatement { try tx.query("SELECT 1", []) { $0.int64(0) } }
                try tx.runDeferred("INSERT INTO \(table) (name, value) VALUES ('after', 1)", [])
            }
        }
        let rows = try store.read { tx in try tx.query("SELECT name, value FROM \(table) ORDER BY name", []) { "\($0.string(0))=\($0.int64(1))" } }
        #expect(rows == ["a=2", "b=1", "c=1"])
    }

    /// A deferred write that fails fails the statement it went with, or the
    /// COMMIT: the whole transaction rolls back, its rollback handlers run,
    /// and the connection serves the next one.
    @Test func aDeferredWriteThatFailsFailsItsTransaction() throws {
        try store.write { tx in _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('taken', 1)", []) }
        for atCommit in [false, true] {
            var undone = false
            do {
                try store.write { tx in
                    tx.onRollback { undone = true }
                    _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('lost', 1)", [])
                    try tx.runDeferred("INSERT INTO \(table) (name, value) VALUES ('taken', 2)", [])
                    if !atCommit { _ = try tx.query("SELECT 1", []) { $0.int64(0) } }
                }
                Issue.record("a duplicate key committed")
            } catch let error as PostgresError {
                #expect(error.sqlState == "23505", "\(error)")
            }
            #expect(undone, "at commit: \(atCommit)")
            let rows = try store.read { tx in try tx.query("SELECT name, value FROM \(table) ORDER BY name", []) { "\($0.string(0))=\($0.int64(1))" } }
            #expect(rows == ["taken=1"], "at commit: \(atCommit)")
        }
    }

    /// A body that catches a failed statement's error and carries on (a
    /// deferred write's error comes back from the statement after it) is
    /// not reported committed: PostgreSQL would answer its COMMIT by
    /// rolling back, as a success.
    @Test func aBodyThatCarriesOnAfterAFailedStatementDoesNotCommit() throws {
        try store.write { tx in _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('taken', 1)", []) }
        var undone = false
        var committed = false
        do {
            try store.write { tx in
                tx.onRollback { undone = true }
                tx.onCommit { committed = true }
                _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('lost', 1)", [])
                try tx.runDeferred("INSERT INTO \(table) (name, value) VALUES ('taken', 2)", [])
                _ = try? tx.query("SELECT 1", []) { $0.int64(0) }
            }
            Issue.record("reported committed")
        } catch let error as PostgresError {
            #expect(error.sqlState == "25P02" && error.refusedAStatement, "\(error)")
        }
        #expect(undone && !committed)
        let rows = try store.read { tx in try tx.query("SELECT name FROM \(table) ORDER BY name", []) { $0.string(0) } }
        #expect(rows == ["taken"])
        #expect(try store.read { tx in try tx.query("SELECT 4", []) { $0.int64(0) } } == [4], "the connection serves the next")
    }

    /// Prefetched queries go in one pipeline; the query that asks for each
    /// takes its answer and sends nothing (the server's view of the
    /// backend's last statement stays the prefetch's last); a write in
    /// between drops them, so what is read after it is read again.
    @Test func prefetchedQueriesAnswerLaterAndAWriteDropsThem() throws {
        let other = try PostgresConnection(conninfo: Self.url!)
        try store.write { tx in _ = try tx.run("INSERT INTO \(table) (name, value) VALUES ('a', 1), ('b', 2)", []) }
        let valueOf = { (name: String) in StoreQuery("SELECT value FROM \(table) WHERE name = ?", [.text(name)]) }
        let (a, b, lastSeen, again) = try store.write { tx in
            let pid = try tx.query("SELECT pg_backend_pid()", []) { $0.int64(0) }[0]
            try tx.prefetch([valueOf("a"), valueOf("b"), StoreQuery("SELECT 'marker'", [])])
            let a = try tx.query(valueOf("a")) { $0.int64(0) }
            let b = try tx.query(valueOf("b")) { $0.int64(0) }
            let lastSeen = try other.query("SELECT query FROM pg_stat_activity WHERE pid = ?", [.integer(pid)]) { $0.string(0) }
            try tx.prefetch([valueOf("a")])
            _ = try tx.run("UPDATE \(table) SET value = 10 WHERE name = 'a'", [])
            return (a, b, lastSeen, try tx.query(valueOf("a")) { $0.int64(0) })
        }
        #expect(a == [1] && b == [2])
        #expect(lastSeen == ["SELECT 'marker'"], "the answers came from the prefetch")
        #expect(again == [10], "read again after the write")
    }

    /// A prefetch marked last carries the COMMIT: its queries are answered
    /// after it, anything else is refused; one that fails fails the body.
    @Test func aPrefetchMarkedLastCommitsAndItsQueriesMayFollow() throws {
        let other = try PostgresConnection(conninfo: Self.url!)
        let seen = try store.write { tx in
            try tx.runDeferred("INSERT INTO \(table) (name, value) VALUES ('p', 5)", [])
            try tx.lastStatement { try tx.prefetch([StoreQuery("SELECT value FROM \(table) WHERE name = 'p'", [])]) }
            let mine = try tx.query("SELECT value FROM \(table) WHERE name = 'p'", []) { $0.int64(0) }
            let theirs = try other.query("SELECT value FROM \(table) WHERE name = 'p'", []) { $0.int64(0) }
            return mine + theirs
        }
        #expect(seen == [5, 5], "its own answer, and committed")
        #expect(throws: StoreError.statementAfterLast) {
            try store.read { tx in
                try tx.lastStatement { try tx.prefetch([StoreQuery("SELECT 1", [])]) }
                _ = try tx.query("SELECT 2", []) { $0.int64(0) }
            }
        }
        do {
            _ = try store.read { tx in try tx.prefetch([StoreQuery("SELECT 1", []), StoreQuery("SELECT 1 / 0", [])]) }
            Issue.record("a division by zero answered")
        } catch let error as PostgresError {
            #expect(error.sqlState == "22012", "\(error)")
        }
        #expect(try store.read { tx in try tx.query("SELECT 3", []) { $0.int64(0) } } == [3])
    }

    /// A body that fails before its first statement sends nothing: the
    /// connection has no transaction left open for the next body to fall into.
    @Test func aBodyThatFailsBeforeAnyStatementLeavesNoTransactionOpen() throws {
        struct Refused: Error {}
        #expect(throws: Refused.self) { try store.write { _ in throw Refused() } }
        let first = try store.write { tx in try tx.query("SELECT txid_current()", []) { $0.int64(0) }[0] }
        let second = try store.write { tx in try tx.query("SELECT txid_current()", []) { $0.int64(0) }[0] }
        #expect(first != second)
    }
}
