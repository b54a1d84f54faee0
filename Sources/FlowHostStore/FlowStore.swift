/// The store as flows and services see it: a few protocols, so that a
/// PostgreSQL backend can replace SQLite without touching anything above.
///
/// Every change happens inside `write`, one atomic transaction that holds the
/// database's write lock from its first statement, so read-modify-write steps
/// (attempt counters, single-use codes) are safe across processes that share
/// the store.
public protocol FlowStore: AnyObject, Sendable {
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T
    func write<T>(durability: Durability, _ body: (any StoreWriter) throws -> T) throws -> T
    /// Another connection to the same store, for another thread (the
    /// delivery worker): a store's connection belongs to the thread that uses it.
    func newConnection() throws -> any FlowStore
}

/// How hard a commit must be on the disk before `write` returns.
public enum Durability: Sendable {
    /// On stable storage before `write` returns (SQLite: synchronous=FULL).
    /// The default, and required for anything security relevant: lowered
    /// attempt counters, blocks, used codes, credentials.
    case full
    /// Safe against a crash of the process, but a power loss may undo it
    /// (SQLite: synchronous=NORMAL, the WAL is synced at the next checkpoint;
    /// PostgreSQL: synchronous_commit=off). Only for changes whose loss
    /// leaves the account as safe as before: a successful login's session
    /// and its audit lines, restoring attempts after a success.
    case relaxed
}

extension FlowStore {
    public func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        try write(durability: .full, body)
    }
}

/// Everything one transaction can read, domain by domain.
public protocol StoreReader: FeedReader, RecordReader, DeviceKeyReader, NotificationReader, SignatureReader {
    func user(_ userID: String) throws -> UserRecord?
    func users() throws -> [UserRecord]
    func device(userID: String, deviceID: String) throws -> DeviceRecord?
    func devices(userID: String) throws -> [DeviceRecord]
    /// Newest first.
    func passwords(userID: String, limit: Int) throws -> [PasswordRecord]
    /// The newest code of the user that is neither used nor superseded, expired or not.
    func latestActivationCode(userID: String) throws -> ActivationCodeRecord?
    /// Codes that have not expired at `now` and were not retired by the
    /// operator: the current one, superseded ones and accepted ones, newest
    /// first, at most `limit`.
    func liveActivationCodes(userID: String, now: Int64, limit: Int) throws -> [ActivationCodeRecord]
    /// The newest live code issued for `deviceID` (device-activation fallback).
    func deviceCode(userID: String, deviceID: String, now: Int64) throws -> ActivationCodeRecord?
    /// The id of the accepted code whose grant hashes to `grantHash`, if that
    /// grant is unspent and the code was accepted at or after `acceptedSince`.
    func activationGrant(userID: String, grantHash: String, acceptedSince: Int64) throws -> Int64?
    func session(_ sessionID: String) throws -> SessionRecord?
    /// The user's sessions that have not ended.
    func openSessions(userID: String) throws -> [SessionRecord]
    /// Users with an active registration on the device, most recent login first.
    func usersRegistered(onDevice deviceID: String) throws -> [String]
    /// Newest first; all users when `userID` is nil.
    func auditEntries(userID: String?, limit: Int) throws -> [AuditEntry]
    func outbox(includeDelivered: Bool) throws -> [OutboxMessage]
    /// Undelivered messages that are due and not leased (oldest first).
    func dueOutboxMessages(now: Int64, limit: Int) throws -> [Int64]
    /// Newest hour first; all users when `userID` is nil.
    func auditCounts(userID: String?, limit: Int) throws -> [AuditCount]
}

public protocol StoreWriter: StoreReader, FeedWriter, RecordWriter, DeviceKeyWriter, NotificationWriter, SignatureWriter {
    func insert(_ user: UserRecord) throws
    func update(_ user: UserRecord) throws
    func save(_ device: DeviceRecord) throws
    func insert(_ password: PasswordRecord) throws
    /// Keeps the newest `keep` passwords of the user, deletes the rest.
    func prunePasswords(userID: String, keep: Int) throws
    @discardableResult func insert(_ code: ActivationCodeRecord) throws -> Int64
    /// Marks a current code used and records the hash of the grant that
    /// completes activation. False when it was used or superseded meanwhile.
    func acceptActivationCode(id: Int64, at: Int64, grantHash: String) throws -> Bool
    /// Spends a grant: false if it was spent or voided meanwhile.
    func spendActivationGrant(codeID: Int64, at: Int64) throws -> Bool
    /// The operator's re-issue: every unused code of the user stops working
    /// and every unspent grant is voided.
    func retireActivationCodes(userID: String, at: Int64) throws
    /// A wrong try at a device code: counted on the code; retired at `limit`. Returns the tries left.
    func recordDeviceCodeMiss(id: Int64, limit: Int, at: Int64) throws -> Int
    /// A client's resend: the current codes are superseded (a later try with
    /// one is told a newer code was sent, at no cost).
    func supersedeActivationCodes(userID: String, at: Int64) throws
    func insert(_ session: SessionRecord) throws
    /// Ends one session if it is open; false if it had ended already.
    @discardableResult func endSession(_ sessionID: String, at: Int64, reason: String) throws -> Bool
    /// Ends every open session of the user (on one device, or on all when
    /// `deviceID` is nil); returns how many ended.
    @discardableResult func endSessions(userID: String, deviceID: String?, at: Int64, reason: String) throws -> Int
    /// Ends every open session idle since before `idleBefore` or created
    /// before `createdBefore`; returns how many ended.
    @discardableResult func endExpiredSessions(idleBefore: Int64, createdBefore: Int64, at: Int64) throws -> Int
    /// Records that a session was used at `at` (its idle lifetime restarts).
    func touchSession(_ sessionID: String, at: Int64) throws
    /// Deletes the audit's hourly counts of hours before `before` (the
    /// database refuses any younger than 90 days); returns how many.
    @discardableResult func pruneAuditCounts(before: Int64) throws -> Int
    /// Deletes sessions that ended before `before`; returns how many.
    @discardableResult func pruneEndedSessions(before: Int64) throws -> Int
    @discardableResult func append(_ entry: AuditEntry) throws -> Int64
    /// Adds one to the hour's count of like events (see `AuditCount`).
    func count(action: String, outcome: String, userID: String?, at: Int64) throws
    @discardableResult func enqueue(_ message: OutboxMessage) throws -> Int64
    func markDelivered(outboxID: Int64, at: Int64) throws
    /// Takes an undelivered message for delivery until `leaseUntil`, unless
    /// another process holds it or it is not due; returns it when taken.
    func claimOutboxMessage(id: Int64, now: Int64, leaseUntil: Int64) throws -> OutboxMessage?
    /// A delivery attempt failed: counted, with a reason that holds no secret;
    /// tried again at `retryAt`, or given up when it is nil.
    func recordDeliveryFailure(outboxID: Int64, at: Int64, reason: String, retryAt: Int64?) throws
}

/// A store operation that failed for a reason the caller can name.
public struct StoreError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }

    public static let userExists = StoreError("user already exists")
    public static let notFound = StoreError("not found")
}
