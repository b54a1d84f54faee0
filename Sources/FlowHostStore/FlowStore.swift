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

public protocol StoreReader {
    func user(_ userID: String) throws -> UserRecord?
    func users() throws -> [UserRecord]
    func device(userID: String, deviceID: String) throws -> DeviceRecord?
    func devices(userID: String) throws -> [DeviceRecord]
    /// Newest first.
    func passwords(userID: String, limit: Int) throws -> [PasswordRecord]
    /// The newest unused code of the user, expired or not.
    func latestActivationCode(userID: String) throws -> ActivationCodeRecord?
    func session(_ sessionID: String) throws -> SessionRecord?
    /// Users with an active registration on the device, most recent login first.
    func usersRegistered(onDevice deviceID: String) throws -> [String]
    /// Newest first; all users when `userID` is nil.
    func auditEntries(userID: String?, limit: Int) throws -> [AuditEntry]
    func outbox(includeDelivered: Bool) throws -> [OutboxMessage]
}

public protocol StoreWriter: StoreReader {
    func insert(_ user: UserRecord) throws
    func update(_ user: UserRecord) throws
    func save(_ device: DeviceRecord) throws
    func insert(_ password: PasswordRecord) throws
    /// Keeps the newest `keep` passwords of the user, deletes the rest.
    func prunePasswords(userID: String, keep: Int) throws
    @discardableResult func insert(_ code: ActivationCodeRecord) throws -> Int64
    func markActivationCodeUsed(id: Int64, at: Int64) throws
    /// Marks every unused code of the user used (a new one replaces them).
    func retireActivationCodes(userID: String, at: Int64) throws
    func insert(_ session: SessionRecord) throws
    func endSession(_ sessionID: String, at: Int64) throws
    /// Ends every open session of the user on the device.
    func endSessions(userID: String, deviceID: String, at: Int64) throws
    @discardableResult func append(_ entry: AuditEntry) throws -> Int64
    @discardableResult func enqueue(_ message: OutboxMessage) throws -> Int64
    func markDelivered(outboxID: Int64, at: Int64) throws
}

/// A store operation that failed for a reason the caller can name.
public struct StoreError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }

    public static let userExists = StoreError("user already exists")
    public static let notFound = StoreError("not found")
}
