import FlowHostAccounts
import FlowHostAudit
import FlowHostDelivery
import FlowHostDevices
import FlowHostSessions
import FlowHostStore
import FlowHostVocabulary

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The credentials domain's logic: codes, passwords, attempts, and the
/// steps of activation and login that use the sessions and devices domains.
/// Flows reach it through the host's services; the admin CLI calls it
/// directly. It is made over a `DomainContext`, which is how anything else
/// reaches the store, the audit log and the other domains.
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
    let context: DomainContext
    public let settings: CredentialSettings
    let delivery: any CodeDelivery
    var store: any FlowStore { context.store }
    var clock: () -> Int64 { context.clock }
    var audit: AuditLog { context.audit }
    /// The sessions domain, for the steps that open or end sessions in their own transactions.
    let sessionLedger: SessionLedger
    /// The sessions domain's own operations.
    let sessions: SessionService
    /// The devices domain: keys, challenges, proofs (a login with a device
    /// key). The host's `device.prove` uses this same object: a proof of a
    /// key the host holds is kept in it, in memory, for the login to spend.
    public let devices: DeviceProofs
    /// Set inside a transaction that appended to the feed.
    var feedAppended = false

    public init(_ context: DomainContext, settings: CredentialSettings, delivery: any CodeDelivery, sessions: SessionSettings = SessionSettings()) {
        self.context = context
        self.settings = settings
        self.delivery = delivery
        self.sessions = SessionService(context, settings: sessions)
        sessionLedger = self.sessions.ledger
        devices = DeviceProofs(context)
    }

    /// `store.write`, then the feed's wake-up if the transaction appended to it.
    func write<T>(durability: Durability = .full, _ body: (any StoreWriter) throws -> T) throws -> T {
        feedAppended = false
        defer {
            if feedAppended { context.ringFeed?() }
            feedAppended = false
        }
        return try store.write(durability: durability, body)
    }

    // MARK: Reads for flows

    public func userState(_ userID: String, deviceID: String) throws -> UserState? {
        let now = clock()
        return try store.read { tx in
            // All four in one round trip, with the COMMIT.
            try tx.lastStatement {
                try tx.prefetch([
                    .user(userID), .device(userID: userID, deviceID: deviceID), .passwords(userID: userID, limit: 1),
                    .latestActivationCode(userID: userID),
                ])
            }
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

    /// The device's proof of possession, inside a login step's transaction,
    /// before anything is counted: a proof is spent; a binding is allowed
    /// only for a device that has no key yet (registered before keys) and
    /// only when `allowsBinding` (a password login). The key is registered
    /// by the caller once the password checked out.
    func possessionRefusal(_ tx: any StoreWriter, userID: String, deviceID: String, _ possession: DevicePossession?, allowsBinding: Bool) throws -> Refusal? {
        switch possession {
        case .proof(let proof):
            return try devices.spend(tx, proof: proof, userID: userID, deviceID: deviceID) ? nil : .deviceNotProven
        case .bind:
            return try allowsBinding && tx.deviceKey(userID: userID, deviceID: deviceID) == nil ? nil : .deviceNotProven
        case nil:
            return .deviceNotProven
        }
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

/// An operator's request the credentials domain refuses (a bad user id, say).
public struct CredentialError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
