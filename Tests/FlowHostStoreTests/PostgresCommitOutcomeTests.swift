import Testing
@testable import FlowHostStore

/// Which failed transactions give back what they took: the decision alone,
/// without a server (a conflict answered at a COMMIT whose connection then
/// breaks is a race no test can time).
struct PostgresCommitOutcomeTests {
    @Test func onlyACommitLeftUnansweredMayHaveLanded() {
        let lost = PostgresError(sqlState: "", message: "server closed the connection unexpectedly")
        let terminated = PostgresError(sqlState: "57P01", message: "terminating connection due to administrator command")
        #expect(PostgresStore.mayHaveCommitted(commitSent: true, failure: lost))
        #expect(PostgresStore.mayHaveCommitted(commitSent: true, failure: terminated))
        #expect(!PostgresStore.mayHaveCommitted(commitSent: false, failure: lost), "no COMMIT sent: nothing landed")
    }

    @Test func anAnswerFromTheServerMeansTheCommitDidNotLand() {
        // These come back from the server, whatever the connection's state
        // after them (a pipeline left open makes it unusable, not committed).
        for sqlState in ["40001", "40P01", "23505", "25P02", "55000"] {
            #expect(!PostgresStore.mayHaveCommitted(commitSent: true, failure: PostgresError(sqlState: sqlState, message: "refused")), "\(sqlState)")
        }
    }
}
