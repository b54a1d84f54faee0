import CLibPQ

extension PostgresConnection {
    /// One statement; the transaction's deferred BEGIN and deferred writes,
    /// if any, go ahead of it in one pipeline (one round trip), and its
    /// COMMIT after it when it is the last. Answers the first statement
    /// that failed, else its own; nil when the connection failed or a
    /// statement could not be sent (the connection's message says why).
    func executeParams(_ statement: PostgresStatement) -> OpaquePointer? {
        precondition(!committed, "a statement after the transaction's COMMIT (writeOneStatement runs one)")
        let ending = takeEnding()
        guard deferredBegin != nil || !deferredWrites.isEmpty || !ending.isEmpty else {
            return statement.withParameters { count, types, values in
                api.pointee.execParams(handle, statement.sql, count, types, values, nil, nil, 0)
            }
        }
        let ahead = takeAhead()
        var results = pipeline(ahead + [statement] + ending)
        let failed = results.firstIndex { !succeeded($0) }
        committed = !ending.isEmpty && failed == nil
        let answer = failed ?? ahead.count
        let kept = results[answer]
        results[answer] = nil
        for result in results { if let result { api.pointee.clear(result) } }
        return kept
    }

    /// Sends `queries` in one pipeline, after whatever waits to go ahead and
    /// with the COMMIT when they are the transaction's last; their answers
    /// are kept for the `query` that asks for each (`takePrefetched`).
    func prefetch(_ queries: [StoreQuery]) throws(PostgresError) {
        guard !committed else { throw PostgresError.misuse("a statement after the transaction's COMMIT") }
        let ending = takeEnding()
        let ahead = takeAhead()
        var results = pipeline(ahead + queries.map { PostgresStatement(translate($0.sql), $0.values) } + ending)
        let failed = results.firstIndex { !succeeded($0) }
        committed = !ending.isEmpty && failed == nil
        if let failed {
            let answer = results[failed]
            results[failed] = nil
            for result in results { if let result { api.pointee.clear(result) } }
            defer { if let answer { api.pointee.clear(answer) } }
            try check(answer)
            return
        }
        for (index, result) in results.enumerated() {
            guard let result else { continue }
            let queryIndex = index - ahead.count
            if queries.indices.contains(queryIndex) {
                prefetched.append((queries[queryIndex], PostgresResult(owning: result, api: api)))
            } else {
                api.pointee.clear(result)
            }
        }
    }

    /// The answer `prefetch` kept for `query`, taken (each is used once).
    func takePrefetched(_ query: StoreQuery) -> PostgresResult? {
        guard let index = prefetched.firstIndex(where: { $0.query == query }) else { return nil }
        return prefetched.remove(at: index).result
    }

    /// The COMMIT, when the next statement is marked the transaction's last.
    private func takeEnding() -> [PostgresStatement] {
        guard commitsWithNext else { return [] }
        commitsWithNext = false
        commitSent = true
        return [PostgresStatement("COMMIT", [])]
    }

    /// What waits to go ahead of the next statement: the deferred BEGIN and writes.
    private func takeAhead() -> [PostgresStatement] {
        let ahead = (deferredBegin ?? []).map { PostgresStatement($0, []) } + deferredWrites
        deferredBegin = nil
        deferredWrites.removeAll()
        return ahead
    }

    private func succeeded(_ result: OpaquePointer?) -> Bool {
        guard let result else { return false }
        let status = api.pointee.resultStatus(result)
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
    }

    /// Sends `statements` in pipeline mode with one Sync, then reads every
    /// result: each statement's, in order (the caller owns them), nil for
    /// one that was not sent or got none (the connection failed). Every
    /// result is read before the pipeline is left, so the connection is
    /// reusable; one left open marks it unusable.
    private func pipeline(_ statements: [PostgresStatement]) -> [OpaquePointer?] {
        let api = api.pointee
        var results = [OpaquePointer?](repeating: nil, count: statements.count)
        guard api.enterPipelineMode(handle) == 1 else { return results }
        var sent = 0
        for statement in statements {
            let queued = statement.withParameters { count, types, values in
                api.sendQueryParams(handle, statement.sql, count, count > 0 ? types : nil, values, nil, nil, 0) == 1
            }
            guard queued else { break }
            sent += 1
        }
        let synced = api.pipelineSync(handle) == 1
        for index in 0..<sent {
            // Each statement's result, then a NULL that ends it.
            guard let first = api.getResult(handle) else { break }
            while let extra = api.getResult(handle) { api.clear(extra) }
            results[index] = first
        }
        var ended = !synced
        // The Sync's own result closes the pipeline; a lost connection ends
        // in NULLs, so the reading is bounded either way.
        for _ in 0..<(sent + 2) where !ended {
            guard let result = api.getResult(handle) else { break }
            ended = api.resultStatus(result) == PGRES_PIPELINE_SYNC
            api.clear(result)
        }
        if api.exitPipelineMode(handle) != 1 { pipelineLeftOpen = true }
        return results
    }
}
