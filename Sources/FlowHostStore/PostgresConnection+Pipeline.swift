import CLibPQ

extension PostgresConnection {
    /// One statement with its parameters; the transaction's deferred BEGIN
    /// and deferred writes, if any, go ahead of it in one pipeline (one
    /// round trip), and its COMMIT after it when it is the last.
    func executeParams(
        _ sql: String, _ count: Int32, _ types: [UInt32], _ values: UnsafePointer<UnsafePointer<CChar>?>?
    ) -> OpaquePointer? {
        precondition(!committed, "a statement after the transaction's COMMIT (writeOneStatement runs one)")
        let ending = commitsWithNext ? ["COMMIT"] : []
        commitsWithNext = false
        guard deferredBegin != nil || !deferredWrites.isEmpty || !ending.isEmpty else {
            return api.pointee.execParams(handle, sql, count, types, values, nil, nil, 0)
        }
        let ahead = (deferredBegin ?? []).map { PostgresStatement($0, []) } + deferredWrites
        deferredBegin = nil
        deferredWrites.removeAll()
        if !ending.isEmpty { commitSent = true }
        let (answer, allSucceeded) = pipelined(ahead, sql, count, types, values, then: ending)
        committed = !ending.isEmpty && allSucceeded
        return answer
    }

    /// Sends `ahead`'s statements, `sql` and `ending`'s in pipeline mode with
    /// one Sync, then reads every result. Answers the first that failed, else
    /// `sql`'s, and whether every statement's own result came and succeeded;
    /// nil when the connection failed or a statement could not be sent (the
    /// connection's message says why). Every result is read before the
    /// pipeline is left, so the connection is reusable.
    private func pipelined(
        _ ahead: [PostgresStatement], _ sql: String, _ count: Int32, _ types: [UInt32], _ values: UnsafePointer<UnsafePointer<CChar>?>?,
        then ending: [String]
    ) -> (OpaquePointer?, Bool) {
        let api = api.pointee
        guard api.enterPipelineMode(handle) == 1 else { return (nil, false) }
        var sent = 0
        for statement in ahead {
            let queued = statement.withParameters { count, types, values in
                api.sendQueryParams(handle, statement.sql, count, count > 0 ? types : nil, values, nil, nil, 0) == 1
            }
            guard queued else { break }
            sent += 1
        }
        if sent == ahead.count, api.sendQueryParams(handle, sql, count, types, values, nil, nil, 0) == 1 { sent += 1 }
        for statement in ending where sent == ahead.count + 1 {
            guard api.sendQueryParams(handle, statement, 0, nil, nil, nil, nil, 0) == 1 else { break }
            sent += 1
        }
        let synced = api.pipelineSync(handle) == 1
        var answer: OpaquePointer?
        var failed = false
        var succeeded = 0
        for index in 0..<sent {
            // Each statement's result, then a NULL that ends it.
            guard let first = api.getResult(handle) else { break }
            while let extra = api.getResult(handle) { api.clear(extra) }
            let status = api.resultStatus(first)
            let ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
            if ok { succeeded += 1 }
            if !failed && (!ok || index == ahead.count) {
                if let earlier = answer { api.clear(earlier) }
                answer = first
                failed = !ok
            } else {
                api.clear(first)
            }
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
        let whole = ahead.count + 1 + ending.count
        if sent < whole, !failed, let unsent = answer {
            // A statement could not be sent: the connection's message says why.
            api.clear(unsent)
            return (nil, false)
        }
        return (answer, succeeded == whole)
    }
}
