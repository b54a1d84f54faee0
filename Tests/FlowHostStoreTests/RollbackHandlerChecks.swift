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

    /// `onCommit` handlers run after the commit, in order, each once; never
    /// for an attempt that does not commit (nor one run again).
    static func commitHandlersRunOnlyAfterCommit(_ store: any FlowStore, insert: String, retryable: any Error) throws {
        var log: [String] = []
        var attempts = 0
        try store.write { tx in
            attempts += 1
            tx.onCommit { log.append("after attempt \(attempts), first") }
            tx.onCommit { log.append("after attempt \(attempts), second") }
            _ = try tx.run(insert, [])
            #expect(log.isEmpty, "not before the commit")
            if attempts == 1 { throw retryable }
        }
        #expect(log == ["after attempt 2, first", "after attempt 2, second"])
        log.removeAll()
        #expect(throws: StoreError.self) {
            try store.write { tx in
                tx.onCommit { log.append("rolled back, yet run") }
                throw StoreError("abort")
            }
        }
        #expect(log.isEmpty)
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
