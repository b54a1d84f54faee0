/// A session just opened in the store, and where the change feed stood as
/// it opened: the host follows the feed for this session from exactly
/// there, read in the transaction that opened it (a read after the commit
/// could pass over an event another host wrote in between, and would be a
/// transaction of its own).
public struct OpenedSession: Sendable, Equatable {
    public let sessionID: String
    /// The feed's newest sequence number in the opening transaction.
    public let feedPosition: Int64

    public init(sessionID: String, feedPosition: Int64) {
        self.sessionID = sessionID
        self.feedPosition = feedPosition
    }
}
