import CLibPQ

#if canImport(Glibc)
import Glibc
#endif

/// The change feed's wake-up on PostgreSQL: a connection of its own that
/// LISTENs on `flowhost_feed`, whose socket is the descriptor the host waits
/// on. The NOTIFY is sent by a trigger on the feed table at each commit, so
/// `ring` has nothing to do. A lost connection is opened again on the next
/// `listen` (at most once per back-off interval, doubling to 5 s); events
/// published meanwhile are read from the feed table by the host's periodic
/// read, so nothing is lost.
///
/// The connection goes to the server itself (`--feed-store`): LISTEN is
/// session state, which a pooler in transaction mode cannot carry.
///
/// Used on one thread at a time (the host's loop).
public final class PostgresFeedSignal: FeedSignal, FeedNoticeSource {
    private let conninfo: String
    private var connection: PostgresConnection?
    public var keepsNotices = false
    private var notices: [FeedNotice] = []
    /// Notices kept between two takes; past it the rest are one `.unreadable`
    /// (a read of the table then tells what came).
    static let keptNotices = 1024
    private var backoff = ReconnectBackoff()
    public private(set) var opened = 0
    /// Named in `pg_stat_activity.application_name`, so an operator sees
    /// which backend is a listener.
    public static let applicationName = "flowhost feed listener"

    public init(url: String) throws {
        try PostgresStore.refusePassword(url)
        conninfo = PostgresStore.normalized(url)
    }

    public func listen() -> Int32? {
        if let connection, connection.isConnected { return connection.api.pointee.socket(connection.handle) }
        connection = nil
        guard backoff.isDue else { return nil }
        do {
            let fresh = try PostgresConnection(conninfo: conninfo)
            try fresh.execute("SET application_name = '\(Self.applicationName)'")
            // A notice's text comes in the connection's encoding, and the
            // host reads the rows a notice carries as UTF-8.
            try fresh.execute("SET client_encoding = 'UTF8'")
            try fresh.execute("LISTEN flowhost_feed")
            connection = fresh
            opened += 1
            backoff.succeeded()
            return fresh.api.pointee.socket(fresh.handle)
        } catch {
            backoff.failed()
            return nil
        }
    }

    public func ring() {}

    public func drain() {
        guard let connection else { return }
        let api = connection.api.pointee
        if api.consumeInput(connection.handle) == 0 || !connection.isConnected {
            self.connection = nil  // the next listen opens a new one
            return
        }
        while let notice = api.notifies(connection.handle) {
            if keepsNotices { keep(notice.pointee.extra.map { FeedNotice(Substring(String(cString: $0))) } ?? .unreadable) }
            api.freemem(notice)
        }
    }

    private func keep(_ notice: FeedNotice) {
        if notices.count < Self.keptNotices {
            notices.append(notice)
        } else if notices.last != .unreadable {
            notices[notices.count - 1] = .unreadable
        }
    }

    public func takeNotices() -> [FeedNotice] {
        defer { notices.removeAll(keepingCapacity: true) }
        return notices
    }
}
