import Testing
@testable import FlowHostStore

/// Which failed transactions give back what they took: the decision alone,
/// without a server (a conflict answered at a COMMIT whose connection then
/// breaks, or a PANIC in a COMMIT, is a moment no test can time).
struct PostgresCommitOutcomeTests {
    @Test func aCommitSentAndNotRefusedMayHaveLanded() {
        let unknown = [
            PostgresError(sqlState: "", message: "server closed the connection unexpectedly"),
            PostgresError(sqlState: "57P01", message: "terminating connection due to administrator command", severity: "FATAL"),
            // A failed WAL flush in a COMMIT: its commit record may be replayed at restart.
            PostgresError(sqlState: "58030", message: "could not fsync file", severity: "PANIC"),
            // Made here: a body that went on after a lost connection it caught.
            PostgresError(sqlState: "25P02", message: "a statement of the transaction failed"),
        ]
        for failure in unknown {
            #expect(PostgresStore.mayHaveCommitted(commitSent: true, failure: failure), "\(failure)")
            #expect(!PostgresStore.mayHaveCommitted(commitSent: false, failure: failure), "no COMMIT sent: nothing landed")
            #expect(failure.isConnectionLost || failure.sqlState == "25P02")
        }
    }

    @Test func aStatementTheServerRefusedMeansTheCommitDidNotLand() {
        // Whatever the connection's state after them (a pipeline left open
        // makes it unusable, not committed).
        for sqlState in ["40001", "40P01", "23505", "25P02"] {
            let refused = PostgresError(sqlState: sqlState, message: "refused", severity: "ERROR")
            #expect(!PostgresStore.mayHaveCommitted(commitSent: true, failure: refused), "\(sqlState)")
            #expect(!refused.isConnectionLost)
        }
    }
}
