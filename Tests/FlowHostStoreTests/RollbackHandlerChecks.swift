import Testing

@testable import FlowHostStore

/// What every store's `onRollback` must do, checked on SQLite and on
/// PostgreSQL by their own suites.
enum RollbackHandlerChecks {
    /// Handlers run only when the transaction does not commit, each once,
    /// the last registered first. `insert` is a statement that succeeds.
    static func runOnlyWithoutCommit(_ store: any FlowStore, insert: String) throws {
        var log: [String] = []
        try store.write { tx in
            tx.onRollback { log.append("committed, yet undone") }
            _ = try tx.run(insert, [])
        }
        #expect(log.isEmpty)
        #expect(throws: StoreError.self) {
            try store.write { tx in
                tx.onRollback { log.append("first") }
                tx.onRollback { log.append("second") }
                throw StoreError("abort")
            }
        }
        #expect(log == ["second", "first"], "last registered, first undone; each once")
    }

    /// An attempt the store runs again (busy, conflicting: `retryable`) is
    /// undone before the body runs the second time.
    static func undoneBeforeTheBodyRunsAgain(_ store: any FlowStore, retryable: any Error) throws {
        var log: [String] = []
        var attempts = 0
        try store.write { tx in
            attempts += 1
            log.append("attempt \(attempts)")
            tx.onRollback { log.append("undo \(attempts)") }
            if attempts == 1 { throw retryable }
        }
        #expect(log == ["attempt 1", "undo 1", "attempt 2"])
    }
}
