import FlowHostAccounts
import FlowHostDevices
import FlowHostSessions
import FlowHostStore

/// A typed password checked: on its own, at login (with the session), at a
/// step-up, and before replacing an expired one. Hashing runs outside any
/// transaction; each check then re-reads the user in its own (see
/// `CredentialService`), and counts the attempt there.
///
/// Used from one thread at a time, like the `CredentialService` it wraps.
public final class PasswordVerification {
    let credentials: CredentialService

    public init(_ credentials: CredentialService) { self.credentials = credentials }

    public func verify(_ userID: String, _ password: String, deviceID: String) throws -> PasswordOutcome {
        try check(userID, password, deviceID: deviceID, proving: nil) { _, outcome in outcome }
    }

    /// A password login: verification and, when it succeeds with a password
    /// that has not expired, the session, in one transaction (one commit).
    ///
    /// The device must show it holds its key first (`possession`): without
    /// that, nothing is counted, so a client that merely claims a device id
    /// cannot spend the user's attempts. A device registered before keys
    /// binds the new key given here once the password checks out.
    public func logIn(
        _ userID: String, _ password: String, deviceID: String, workflow: String, possession: DevicePossession?
    ) throws -> (PasswordOutcome, session: OpenedSession?) {
        let proving = PossessionCheck(possession: possession, allowsBinding: true, action: "password.login")
        return try check(userID, password, deviceID: deviceID, proving: proving) { tx, outcome in
            guard case .accepted(let expired) = outcome else { return (outcome, nil) }
            if case .bind(let key) = possession {
                try credentials.devices.register(tx, userID: userID, deviceID: deviceID, keyID: key.keyID, publicKey: key.publicKey, custody: key.custody)
            }
            guard !expired else { return (outcome, nil) }
            return (outcome, try credentials.sessionLedger.open(tx, userID: userID, deviceID: deviceID, workflow: workflow))
        }
    }

    /// `updatePassword(current, new, 4)`: the current password must verify,
    /// the new one must pass the policy and the history.
    public func update(_ userID: String, current: String, new: String, deviceID: String) throws -> PasswordUpdateOutcome {
        switch try verify(userID, current, deviceID: deviceID) {
        case .refused(let refusal): return .refused(refusal)
        case .wrong(let left): return .wrongCurrent(attemptsLeft: left)
        case .accepted: break
        }
        let check = try credentials.checkNewPassword(userID, new)
        guard check == .acceptable else {
            try credentials.write { try credentials.audit.count($0, userID, "password.update", check == .reused ? "reused" : "policy") }
            return .rejected(check)
        }
        let hash = try credentials.settings.hasher.hash(new)
        return try credentials.write { tx in
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            if let refusal = try credentials.loginRefusal(tx, user, deviceID: deviceID) {
                try credentials.audit.count(tx, userID, "password.update", refusal.name)
                return .refused(refusal)
            }
            try credentials.storePassword(tx, userID: userID, hash: hash)
            try credentials.audit.row(tx, userID, deviceID, "password.update", "ok")
            return .updated
        }
    }

    /// A step-up: the logged-in user's password again, on a device that
    /// proves it holds its key first (nothing is counted without that).
    /// Opens no session; an expired password is reported as such.
    public func stepUp(_ userID: String, _ password: String, deviceID: String, proof: String) throws -> PasswordOutcome {
        let proving = PossessionCheck(possession: .proof(proof), allowsBinding: false, action: "password.step-up")
        return try check(userID, password, deviceID: deviceID, proving: proving) { _, outcome in outcome }
    }

    /// The device's proof a step needs before it counts an attempt; a refusal is audited under `action`.
    private struct PossessionCheck {
        let possession: DevicePossession?, allowsBinding: Bool, action: String
    }

    /// Every check: the password hashed outside any transaction; then, in
    /// one, the user re-read, refused if they may not log in on this device
    /// now or (`proving`) the device does not prove possession, else the
    /// attempt counted; `finish` gets the outcome there. With `proving`, a
    /// failed attempt must survive a power loss and a success may not need to.
    private func check<T>(
        _ userID: String, _ password: String, deviceID: String, proving: PossessionCheck?,
        then finish: (any StoreWriter, PasswordOutcome) throws -> T
    ) throws -> T {
        let now = credentials.clock()
        let (user, current) = try userAndPassword(userID)
        let matches = user.blockReason == nil && current.map { credentials.settings.hasher.verify(password, against: $0.hash) } ?? false
        return try credentials.write(durability: proving != nil && matches ? .relaxed : .full) { tx in
            // What the checks below read, in one round trip.
            try tx.prefetch(
                [.user(userID), .device(userID: userID, deviceID: deviceID), .passwords(userID: userID, limit: 1)]
                    + (proving != nil ? [.deviceKey(userID: userID, deviceID: deviceID)] : []))
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            if let standing = try credentials.loginRefusal(tx, user, deviceID: deviceID) {
                try credentials.audit.count(tx, user.userID, "password.verify", standing.name)
                return try finish(tx, .refused(standing))
            }
            if let proving,
                let refusal = try credentials.possessionRefusal(
                    tx, userID: userID, deviceID: deviceID, proving.possession, allowsBinding: proving.allowsBinding)
            {
                try credentials.audit.count(tx, userID, proving.action, refusal.name)
                return try finish(tx, .refused(refusal))
            }
            let outcome = try credentials.judgePassword(
                tx, user, deviceID: deviceID, matches: matches, checked: current, now: now, action: "password.verify")
            return try finish(tx, outcome)
        }
    }

    /// The user and their current password hash, read before hashing (which
    /// runs outside any transaction).
    private func userAndPassword(_ userID: String) throws -> (UserRecord, PasswordRecord?) {
        guard
            let found = try credentials.store.read({ tx in
                try tx.lastStatement { try tx.prefetch([.user(userID), .passwords(userID: userID, limit: 1)]) }
                return try tx.user(userID).map { ($0, try tx.passwords(userID: userID, limit: 1).first) }
            })
        else { throw StoreError.notFound }
        return found
    }
}
