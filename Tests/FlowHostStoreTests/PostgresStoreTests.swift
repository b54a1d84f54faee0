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
}
