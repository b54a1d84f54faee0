import FlowHostVocabulary
import FlowHostStore
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The security logic over the store: codes, passwords, attempts, devices,
/// sessions, audit. Flows reach it through the host's services; the admin
/// CLI calls it directly.
///
/// Every counter lives in the store and every change is one transaction, so
/// a restart never resets an attempt count and two hosts on one store agree.
/// Slow hashing runs outside transactions; every step then re-reads the user
/// inside its own write transaction and refuses (`Refusal`) when the user's
/// state no longer allows it: an operator's block, or another device's
/// activation, between two steps of a dialogue is seen by the next step.
///
/// Used from one thread at a time (the host's loop, or the admin command).
/// Code delivery runs on its own thread (`DeliveryWorker`) and shares only
/// the store, which serialises its own use.
public final class CredentialService {
    public let store: any FlowStore
    public let settings: CredentialSettings
    let delivery: any CodeDelivery
    let clock: () -> Int64
    /// Rings the change feed's wake-up after a commit that appended to the
    /// feed (sessions ended by a block, say), so other hosts learn at once.
    public var ringFeed: (() -> Void)?
    /// Set inside a transaction that appended to the feed.
    var feedAppended = false

    public init(store: any FlowStore, settings: CredentialSettings, delivery: any CodeDelivery, clock: @escaping () -> Int64 = CredentialService.now) {
        self.store = store
        self.settings = settings
        self.delivery = delivery
        self.clock = clock
    }

    public static func now() -> Int64 { Int64(time(nil)) }

    /// `store.write`, then the feed's wake-up if the transaction appended to it.
    func write<T>(durability: Durability = .full, _ body: (any StoreWriter) throws -> T) throws -> T {
        feedAppended = false
        defer {
            if feedAppended { ringFeed?() }
            feedAppended = false
        }
        return try store.write(durability: durability, body)
    }

    // MARK: Reads for flows

    public func userState(_ userID: String, deviceID: String) throws -> UserState? {
        let now = clock()
        return try store.read { tx in
            guard let user = try tx.user(userID) else { return nil }
            let device = try tx.device(userID: userID, deviceID: deviceID)
            let passwords = try tx.passwords(userID: userID, limit: 1)
            let code = try tx.latestActivationCode(userID: userID)
            return UserState(
                userID: userID, isActive: user.status == .active, blockedStatus: user.blockReason.map { Refusal.blocked($0).status },
                registeredOnDevice: device?.status == .active, ldaType: device?.status == .active ? device?.ldaType : nil,
                hasPassword: !passwords.isEmpty, passwordExpired: isExpired(user, passwords.first, now: now),
                activationAttemptsLeft: user.activationAttemptsLeft, passwordAttemptsLeft: user.passwordAttemptsLeft,
                verificationKey: code.flatMap { $0.expiresAt > now ? $0.verificationKey : nil })
        }
    }

    /// Users registered on a device, most recently logged in first.
    public func rememberedUsers(deviceID: String) throws -> [String] {
        try store.read { try $0.usersRegistered(onDevice: deviceID) }
    }

    // MARK: State checks, inside a step's transaction

    /// What an activation step needs: a pending user who is not blocked.
    func activationRefusal(_ tx: any StoreReader, _ user: UserRecord, deviceID: String) throws -> Refusal? {
        if let reason = user.blockReason { return .blocked(reason) }
        guard user.status == .pending else {
            let device = try tx.device(userID: user.userID, deviceID: deviceID)
            return device?.status == .active ? .alreadyActive : .notRegisteredOnDevice
        }
        return nil
    }

    /// What a login step needs: an active user, not blocked, registered on this device.
    func loginRefusal(_ tx: any StoreReader, _ user: UserRecord, deviceID: String) throws -> Refusal? {
        if let reason = user.blockReason { return .blocked(reason) }
        guard user.status == .active, try tx.device(userID: user.userID, deviceID: deviceID)?.status == .active else {
            return .notRegisteredOnDevice
        }
        return nil
    }

    // MARK: Audit

    /// Records a flow-level event. Events that anyone can cause without
    /// proving anything are counted per hour (`AuditCount`), never one row
    /// each, and an id that names no known user is not kept at all: it might
    /// be a password typed into the wrong field.
    public func record(userID: String?, deviceID: String?, action: String, outcome: String) throws {
        try write(durability: .relaxed) { tx in
            let known = try userID.flatMap { try tx.user($0) }?.userID
            try tx.count(action: Self.bounded(action), outcome: Self.bounded(outcome), userID: known, at: clock())
        }
    }

    /// A row in the audit log: for changes of state (a counter, a code, a
    /// credential, a session, a block), each of which is bounded by the
    /// attempts and rate limits that guard it.
    func audit(_ tx: any StoreWriter, _ userID: String?, _ deviceID: String?, _ action: String, _ outcome: String, _ detail: JSON? = nil) throws {
        try tx.append(
            AuditEntry(at: clock(), userID: userID, deviceID: deviceID, action: action, outcome: outcome, detail: detail?.serialized()))
    }

    /// A count for an event that changed nothing (a refusal, a rate-limited
    /// resend, an expired or replaced code): repeating it costs no row.
    func count(_ tx: any StoreWriter, _ userID: String?, _ action: String, _ outcome: String) throws {
        try tx.count(action: action, outcome: outcome, userID: userID, at: clock())
    }

    /// Action and outcome names from flows are short identifiers; anything
    /// else is cut, so a flow cannot make the counter key unbounded.
    static func bounded(_ name: String) -> String {
        let kept = name.unicodeScalars.prefix(64).filter { $0.isASCII && ($0.properties.isAlphabetic || "0123456789.-_".unicodeScalars.contains($0)) }
        return kept.isEmpty ? "other" : String(String.UnicodeScalarView(kept))
    }

    // MARK: Helpers

    func isExpired(_ user: UserRecord, _ current: PasswordRecord?, now: Int64) -> Bool {
        if user.passwordExpired { return true }
        guard settings.passwordLifetimeDays > 0, let current else { return false }
        return now - current.createdAt >= Int64(settings.passwordLifetimeDays) * 86_400
    }

    /// User ids: the rule in `UserIdentifier`, shared with the protocol boundary.
    public static func checkUserID(_ userID: String) throws {
        if let problem = UserIdentifier.problem(with: userID) { throw CredentialError("user id \(problem)") }
    }
}
