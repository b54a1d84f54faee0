import Foundation
import Testing
import FlowHostPOSIX
@testable import FlowHostStore

/// The WAL is copied back into the store file on the store's own thread:
/// a commit past the threshold only asks.
@Suite struct WALCheckpointerTests {
    private func temporaryPath() throws -> String {
        let folder = NSTemporaryDirectory() + "flowhost-checkpoint-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + "/store.sqlite"
    }

    /// A connection in WAL mode, as the store opens it, with a table to fill.
    private func writer(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 10_000)
        try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE IF NOT EXISTS filler (body BLOB NOT NULL);")
        return connection
    }

    /// `commits` transactions of twelve rows of 3,000 bytes: about twelve WAL frames each.
    private func fill(_ connection: SQLiteConnection, commits: Int) throws {
        for _ in 0..<commits {
            try connection.execute("BEGIN IMMEDIATE")
            for _ in 0..<12 { try connection.run("INSERT INTO filler (body) VALUES (?)", [.blob([UInt8](repeating: 7, count: 3000))]) }
            try connection.execute("COMMIT")
        }
    }

    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    private func waitUntil(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline { usleep(5_000) }
    }

    /// With the thread held back, commits far past the threshold copy
    /// nothing into the store file (SQLite's own checkpoint, at 1,000
    /// frames, would have); once it runs, the thread copies the WAL.
    @Test func commitsPastTheThresholdLeaveTheCheckpointToTheThread() throws {
        let path = try temporaryPath()
        let connection = try writer(path)
        let gate = DispatchSemaphore(value: 0)
        let checkpointer = WALCheckpointer(
            threshold: 50,
            openConnection: {
                gate.wait()
                return try writer(path)
            }, report: { Issue.record("reported: \($0)") })
        connection.checkpointInBackground(checkpointer)
        let before = size(path)
        try fill(connection, commits: 150)  // about 1,800 frames
        #expect(size(path) == before, "a commit copied the WAL into the store file itself")
        gate.signal()
        waitUntil { checkpointer.checkpointsCompleted > 0 }
        #expect(checkpointer.checkpointsCompleted > 0)
        #expect(size(path) > before + 150 * 12 * 3000)
        checkpointer.stop()
    }

    /// Under steady load, commits land while the thread copies, so no
    /// write ever finds the whole WAL copied and starts it again: the first
    /// commit after the thread's checkpoint copies the frames added
    /// meanwhile itself, and the WAL stays near the threshold instead of
    /// growing with every commit.
    @Test func underSteadyLoadTheWALStartsAgainAfterEachCheckpoint() throws {
        let path = try temporaryPath()
        let connection = try writer(path)
        let checkpointer = WALCheckpointer(threshold: 50, openConnection: { try writer(path) }, report: { Issue.record("reported: \($0)") })
        connection.checkpointInBackground(checkpointer)
        try fill(connection, commits: 3000)  // about 36,000 frames, back to back
        #expect(checkpointer.checkpointsCompleted > 0)
        // Without the commit's finish, no write finds the whole WAL copied:
        // it would grow to all 36,000 frames, never started again.
        #expect(checkpointer.walRestarts >= 3)
        #expect(checkpointer.largestWALFrames < 12_000, "the WAL grew to \(checkpointer.largestWALFrames) frames")
        checkpointer.stop()
    }

    /// Where the thread cannot open the store, commits checkpoint it
    /// themselves, as SQLite's own hook would: the WAL is still copied.
    @Test func withoutTheThreadCommitsCheckpointThemselves() throws {
        let path = try temporaryPath()
        let connection = try writer(path)
        let reports = Locked([String]())
        let checkpointer = WALCheckpointer(
            threshold: 50, openConnection: { throw StoreError("refused by the test") }, report: { message in reports.withLock { $0.append(message) } })
        connection.checkpointInBackground(checkpointer)
        let before = size(path)
        try fill(connection, commits: 10)  // past the threshold: the thread starts, and fails
        waitUntil { !reports.withLock { $0.isEmpty } }
        #expect(reports.withLock { $0.contains { $0.contains("cannot open the store") && $0.contains("refused by the test") } })
        try fill(connection, commits: 10)
        #expect(size(path) > before + 10 * 12 * 3000, "no checkpoint after the thread failed")
        #expect(checkpointer.checkpointsCompleted == 0)
        checkpointer.stop()
    }

    /// The store's thread checkpoints, and its connection closes before the
    /// store's own: that last close still leaves the WAL empty.
    @Test func theStoresThreadCheckpointsAndTheClosedStoreLeavesAnEmptyWAL() throws {
        let path = try temporaryPath()
        do {
            let store = try SQLiteStore(
                path: path, schema: SQLiteStoreTests.schema, busyTimeoutSeconds: 10, checkpointThreshold: 50,
                report: { Issue.record("reported: \($0)") })
            for index in 0..<200 {
                _ = try store.write { tx in
                    try tx.run("INSERT INTO counter (name, value) VALUES (?, ?)", [.text("\(index)" + String(repeating: "x", count: 3000)), .integer(Int64(index))])
                }
            }
            waitUntil { store.backgroundCheckpoints > 0 }
            #expect(store.backgroundCheckpoints > 0)
            #expect(size(path) > 100 * 3000, "the thread's checkpoint copied nothing")
            #expect(size(path + "-wal") > 0)
        }
        #expect(size(path + "-wal") == 0, "the checkpoint thread's connection outlived the store's")
        let reopened = try SQLiteStore(path: path, schema: SQLiteStoreTests.schema)
        #expect(try reopened.read { try $0.query("SELECT COUNT(*) FROM counter", []) { $0.int(0) } } == [200])
    }
}
