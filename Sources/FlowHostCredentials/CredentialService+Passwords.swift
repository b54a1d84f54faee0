import FlowHostAccounts
import FlowHostDevices
import FlowHostStore

/// Passwords: the policy and history check, verification, login, update.
extension CredentialService {
    /// Policy (190) then history (164), without storing anything.
    public func checkNewPassword(_ userID: String, _ password: String) throws -> NewPasswordCheck {
        let problems = settings.policy.violations(of: password, userID: userID)
        if !problems.isEmpty { return .violatesPolicy(problems) }
        let history = try store.read { try $0.passwords(userID: userID, limit: settings.historyDepth) }
        if history.contains(where: { settings.hasher.verify(password, against: $0.hash) }) { return .reused }
        return .acceptable
    }

    public func verifyPassword(_ userID: String, _ password: String, deviceID: String) throws -> PasswordOutcome {
        let now = clock()
        let (user, current) = try userAndPassword(userID)
        let matches = user.blockReason == nil && current.map { settings.hasher.verify(password, against: $0.hash) } ?? false
        return try write { tx in
            try recordVerification(tx, userID: userID, deviceID: deviceID, matches: matches, current: current, now: now)
        }
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
    ) throws -> (PasswordOutcome, sessionID: String?) {
        let now = clock()
        let (user, current) = try userAndPassword(userID)
        let matches = user.blockReason == nil && current.map { settings.hasher.verify(password, against: $0.hash) } ?? false
        // A failed attempt must survive a power loss; a success may not need to.
        return try write(durability: matches ? .relaxed : .full) { tx in
            if let user = try tx.user(userID), try loginRefusal(tx, user, deviceID: deviceID) == nil,
                let refusal = try possessionRefusal(tx, userID: userID, deviceID: deviceID, possession, allowsBinding: true)
            {
                try audit.count(tx, userID, "password.login", refusal.name)
                return (.refused(refusal), nil)
            }
            let outcome = try recordVerification(tx, userID: userID, deviceID: deviceID, matches: matches, current: current, now: now)
            guard case .accepted(let expired) = outcome else { return (outcome, nil) }
            if case .bind(let key) = possession {
                try devices.register(tx, userID: userID, deviceID: deviceID, keyID: key.keyID, publicKey: key.publicKey, custody: key.custody)
            }
            guard !expired else { return (outcome, nil) }
            return (outcome, try sessionLedger.open(tx, userID: userID, deviceID: deviceID, workflow: workflow))
        }
    }

    /// `updatePassword(current, new, 4)`: the current password must verify,
    /// the new one must pass the policy and the history.
    public func updatePassword(_ userID: String, current: String, new: String, deviceID: String) throws -> PasswordUpdateOutcome {
        switch try verifyPassword(userID, current, deviceID: deviceID) {
        case .refused(let refusal): return .refused(refusal)
        case .wrong(let left): return .wrongCurrent(attemptsLeft: left)
        case .accepted: break
        }
        let check = try checkNewPassword(userID, new)
        guard check == .acceptable else {
            try write { try audit.count($0, userID, "password.update", check == .reused ? "reused" : "policy") }
            return .rejected(check)
        }
        let hash = try settings.hasher.hash(new)
        return try write { tx in
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            if let refusal = try loginRefusal(tx, user, deviceID: deviceID) {
                try audit.count(tx, userID, "password.update", refusal.name)
                return .refused(refusal)
            }
            try storePassword(tx, userID: userID, hash: hash)
            try audit.row(tx, userID, deviceID, "password.update", "ok")
            return .updated
        }
    }

    /// A step-up: the logged-in user's password again, on a device that
    /// proves it holds its key first (nothing is counted without that).
    /// Opens no session; an expired password is reported as such.
    public func stepUpPassword(_ userID: String, _ password: String, deviceID: String, proof: String) throws -> PasswordOutcome {
        let now = clock()
        let (user, current) = try userAndPassword(userID)
        let matches = user.blockReason == nil && current.map { settings.hasher.verify(password, against: $0.hash) } ?? false
        return try write(durability: matches ? .relaxed : .full) { tx in
            if let user = try tx.user(userID), try loginRefusal(tx, user, deviceID: deviceID) == nil,
                let refusal = try possessionRefusal(tx, userID: userID, deviceID: deviceID, .proof(proof), allowsBinding: false)
            {
                try audit.count(tx, userID, "password.step-up", refusal.name)
                return .refused(refusal)
            }
            return try recordVerification(tx, userID: userID, deviceID: deviceID, matches: matches, current: current, now: now)
        }
    }

    /// The counter side of a password check, inside the caller's transaction:
    /// re-reads the user, refuses a user who may not log in on this device
    /// now, then restores or lowers the attempts.
    private func recordVerification(
        _ tx: any StoreWriter, userID: String, deviceID: String, matches: Bool, current: PasswordRecord?, now: Int64
    ) throws -> PasswordOutcome {
        guard let user = try tx.user(userID) else { throw StoreError.notFound }
        if let refusal = try loginRefusal(tx, user, deviceID: deviceID) {
            try audit.count(tx, userID, "password.verify", refusal.name)
            return .refused(refusal)
        }
        return try judgePassword(tx, user, deviceID: deviceID, matches: matches, checked: current, now: now, action: "password.verify")
    }

    /// The one place a typed password is judged, for every path that ends in
    /// a session (a login, a step-up, a new device): the hash checked outside
    /// the transaction must still be the current one; a match restores the
    /// attempts and reports expiry; a miss costs an attempt and blocks at
    /// zero. A user with no password is never asked to verify one, so a try
    /// for them is refused without costing anything (`.refused(.noPassword)`).
    /// The caller has already refused a user who may not go on (a block).
    func judgePassword(
        _ tx: any StoreWriter, _ user: UserRecord, deviceID: String, matches: Bool, checked: PasswordRecord?, now: Int64, action: String
    ) throws -> PasswordOutcome {
        var user = user
        let stillCurrent = try tx.passwords(userID: user.userID, limit: 1).first
        guard let stillCurrent else {
            try audit.count(tx, user.userID, action, "no-password")
            return .refused(.noPassword)
        }
        if matches, stillCurrent == checked {
            if user.passwordAttemptsLeft != settings.maxPasswordAttempts {
                user.passwordAttemptsLeft = settings.maxPasswordAttempts
                try tx.update(user)
            }
            let expired = isExpired(user, stillCurrent, now: now)
            try audit.row(tx, user.userID, deviceID, action, expired ? "ok-expired" : "ok")
            return .accepted(expired: expired)
        }
        if let left = try recordFailure(tx, &user, \.passwordAttemptsLeft, blocking: .passwordAttempts, deviceID: deviceID, action: action) {
            return .wrong(attemptsLeft: left)
        }
        return .refused(.blocked(.passwordAttempts))
    }

    /// The user and their current password hash, read before hashing (which
    /// runs outside any transaction).
    private func userAndPassword(_ userID: String) throws -> (UserRecord, PasswordRecord?) {
        guard let found = try store.read({ tx in try tx.user(userID).map { ($0, try tx.passwords(userID: userID, limit: 1).first) } })
        else { throw StoreError.notFound }
        return found
    }

    func storePassword(_ tx: any StoreWriter, userID: String, hash: String) throws {
        try tx.insert(PasswordRecord(userID: userID, hash: hash, createdAt: clock()))
        try tx.prunePasswords(userID: userID, keep: max(1, settings.historyDepth))
        guard var user = try tx.user(userID) else { throw StoreError.notFound }
        user.passwordExpired = false
        try tx.update(user)
    }
}
