import ArgumentParser
import FlowHostAudit
import FlowHostCore
import FlowHostLaunch
import FlowHostPOSIX
import FlowHostStore

#if canImport(Glibc)
import Glibc
#endif

/// `flowhost admin audit --jsonl [--follow] [--after SEQ]`: the audit as a
/// stream, one JSON object per line, each with its `seq`, oldest first,
/// every row once (`AuditCursor`). Each line is written whole, in one
/// write, so a reader that is killed can resume after the last seq it
/// printed.
struct AuditStream {
    let store: any FlowStore
    let location: StoreLocation
    let after: Int64
    let follow: Bool

    /// Rows read at once.
    static let batch = 256
    /// The longest a follower sleeps without a wake-up: the fallback for
    /// writes that ring nothing (on PostgreSQL, most of them).
    static let idleMilliseconds: Int32 = 1000
    /// Without --follow, how long it waits for transactions still open
    /// before it stops at the rows that are final.
    static let settleMilliseconds = 10_000

    func run() throws {
        let cursor = AuditCursor(store: store, after: after)
        let wake = follow ? wakeUp() : nil
        var pause: Int32 = 10
        var waited = 0
        while true {
            let rows = try cursor.next(limit: Self.batch)
            for row in rows { try SystemFile.writeAll(STDOUT_FILENO, Array((row.streamJSON(time: isoTime).serialized() + "\n").utf8)) }
            if rows.count == Self.batch { continue }
            if cursor.waiting {
                // A transaction that drew an id is still open: look again
                // soon, then less often while it stays open.
                if !follow && waited >= Self.settleMilliseconds {
                    printError("flowhost admin: rows after seq \(cursor.seq) wait on a transaction still open; run again to see them")
                    return
                }
                sleep(milliseconds: pause, on: wake)
                waited += Int(pause)
                pause = min(pause * 2, Self.idleMilliseconds)
                continue
            }
            pause = 10
            waited = 0
            guard follow else { return }
            sleep(milliseconds: Self.idleMilliseconds, on: wake)
        }
    }

    /// What wakes a follower when the store changes: on SQLite, the WAL file
    /// (every commit writes it; watched with inotify, as `FeedWake` watches
    /// the feed's file); on PostgreSQL, the change feed's LISTEN (which
    /// rings for the writes that append to the feed). Nil: poll alone.
    private func wakeUp() -> (any FeedSignal)? {
        if location.isPostgres { return try? PostgresFeedSignal(url: location.feedURL ?? location.path) }
        return try? FeedWake(path: location.path + "-wal")
    }

    /// Sleeps up to `milliseconds`, less when `wake` rings.
    private func sleep(milliseconds: Int32, on wake: (any FeedSignal)?) {
        guard let wake, let descriptor = wake.listen() else {
            usleep(UInt32(milliseconds) * 1000)
            return
        }
        var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        if poll(&watched, 1, milliseconds) > 0 { wake.drain() }
    }
}
