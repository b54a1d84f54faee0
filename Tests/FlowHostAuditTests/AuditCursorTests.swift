import FlowHostAudit
import FlowHostStore
import Foundation
import TestSupport
import Testing

/// The stream's cursor: every row once, in seq order, resumable; on
/// PostgreSQL, never past a row whose transaction is still open.
@Suite struct AuditCursorTests {
    static func row(_ tx: any StoreWriter, _ action: String) throws -> Int64 {
        try tx.append(AuditEntry(at: 1, userID: nil, deviceID: nil, action: action, outcome: "ok"))
    }

    @Test func readsEveryRowOnceInOrderInBatchesAndResumesFromItsSeq() throws {
        let fixture = try ThrowAwayStore(SchemaMigrator(AuditSchema.register(in:)))
        let store = fixture.store
        for index in 0..<7 { try store.write { _ = try Self.row($0, "a\(index)") } }
        let cursor = AuditCursor(store: store, after: 0)
        let first = try cursor.next(limit: 3)
        #expect(first.map(\.action) == ["a0", "a1", "a2"] && cursor.seq == first.last?.id)
        // A reader that stopped here starts a new cursor at the last seq it has.
        let resumed = AuditCursor(store: store, after: cursor.seq)
        var rest: [AuditEntry] = []
        var batch: [AuditEntry]
        repeat {
            batch = try resumed.next(limit: 3)
            rest += batch
        } while !batch.isEmpty
        #expect(rest.map(\.action) == ["a3", "a4", "a5", "a6"])
        #expect(!resumed.waiting)
        try store.write { _ = try Self.row($0, "late") }
        #expect(try resumed.next(limit: 3).map(\.action) == ["late"])
    }

    /// SQLite: one writer at a time, and a row takes one above the highest
    /// id, so a row that rolled back leaves nothing a reader could miss.
    @Test func onSQLiteSeqOrderIsCommitOrder() throws {
        let fixture = try ThrowAwayStore(SchemaMigrator(AuditSchema.register(in:)))
        let store = fixture.store
        try store.write { _ = try Self.row($0, "one") }
        let cursor = AuditCursor(store: store, after: 0)
        #expect(try cursor.next(limit: 10).map(\.action) == ["one"])
        #expect(throws: StoreError.self) {
            try store.write { tx in
                _ = try Self.row(tx, "rolled back")
                throw StoreError("abort")
            }
        }
        try store.write { _ = try Self.row($0, "two") }
        #expect(try cursor.next(limit: 10).map(\.action) == ["two"])
    }
}

/// On a database of a throw-away cluster (FLOWHOST_TEST_POSTGRES_URL, as
/// `PostgresStoreTests`); skipped without it.
private let testPostgresURL = ProcessInfo.processInfo.environment["FLOWHOST_TEST_POSTGRES_URL"]

@Suite(.serialized, .enabled(if: testPostgresURL != nil, "needs FLOWHOST_TEST_POSTGRES_URL (scripts/test.sh sets it)"))
struct AuditCursorPostgresTests {
    static func open() throws -> PostgresStore { try PostgresStore(url: testPostgresURL!, schema: SchemaMigrator(AuditSchema.register(in:))) }

    /// Writer A draws its seq and holds its transaction open while B draws a
    /// higher one and commits. The cursor hands out neither until A commits,
    /// then both, A's first.
    @Test func aRowHeldInAnOpenTransactionHoldsTheStreamBackAndIsNotSkipped() throws {
        let reader = try Self.open()
        let start = try reader.read { try $0.auditEntries(userID: nil, limit: 1) }.first?.id ?? 0
        let cursor = AuditCursor(store: reader, after: start)
        let holder = try Self.open()
        let drawn = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        let heldSeq = Handover<Int64>(0)
        Thread.detachNewThread {
            try? holder.write { tx in
                heldSeq.value = try AuditCursorTests.row(tx, "held")
                drawn.signal()
                release.wait()
            }
            committed.signal()
        }
        drawn.wait()
        let other = try Self.open()
        let laterSeq = try other.write { try AuditCursorTests.row($0, "later") }
        #expect(laterSeq > heldSeq.value)
        for _ in 0..<3 {
            #expect(try cursor.next(limit: 10).isEmpty)
            #expect(cursor.waiting)
            usleep(50_000)
        }
        release.signal()
        committed.wait()
        var read: [AuditEntry] = []
        for _ in 0..<100 where read.count < 2 {
            read += try cursor.next(limit: 10)
            if read.count < 2 { usleep(20_000) }
        }
        #expect(read.map(\.action) == ["held", "later"])
        #expect(read.map(\.id) == [heldSeq.value, laterSeq] && cursor.seq == laterSeq)
        #expect(!cursor.waiting)
    }

    /// The only open writer holds the newest transaction id, and nothing
    /// commits after it took that id: no snapshot lists it as running (a
    /// snapshot's xmax is one past the newest that finished). The cursor
    /// hands out nothing past the rows before it until it commits, then its row.
    /// (Every other test here commits a newer transaction first, which hides this.)
    @Test func aRowOfTheNewestTransactionStillOpenIsNotSkipped() throws {
        let reader = try Self.open()
        let holder = try Self.open()
        let before = try reader.write { try AuditCursorTests.row($0, "before") }
        let cursor = AuditCursor(store: reader, after: before - 1)
        let drawn = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        let heldSeq = Handover<Int64>(0)
        Thread.detachNewThread {
            try? holder.write { tx in
                heldSeq.value = try AuditCursorTests.row(tx, "newest, open")
                drawn.signal()
                release.wait()
            }
            committed.signal()
        }
        drawn.wait()
        var read: [AuditEntry] = []
        for _ in 0..<5 {
            read += try cursor.next(limit: 10)
            usleep(50_000)
        }
        // Rows up to the newest id given are held back together until it commits.
        #expect(!read.compactMap(\.id).contains(heldSeq.value) && read.allSatisfy { $0.action == "before" })
        #expect(cursor.waiting)
        release.signal()
        committed.wait()
        for _ in 0..<100 where !read.contains(where: { $0.id == heldSeq.value }) {
            read += try cursor.next(limit: 10)
            if !read.contains(where: { $0.id == heldSeq.value }) { usleep(20_000) }
        }
        #expect(read.map(\.action) == ["before", "newest, open"])
        #expect(cursor.seq == heldSeq.value && !cursor.waiting)
    }
}

/// A value shared with the holder's thread.
///
/// `@unchecked Sendable`: written once by the holder before it signals,
/// read by the test only after it waited for that signal.
final class Handover<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
