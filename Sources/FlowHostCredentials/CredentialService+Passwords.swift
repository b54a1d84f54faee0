import FlowHostAccounts
import FlowHostDevices
import FlowHostStore

/// Passwords: the policy and history check, judging a typed password, storing a new one.
extension CredentialService {
    /// Policy (190) then history (164), without storing anything.
    public func checkNewPassword(_ userID: String, _ password: String) throws -> NewPasswordCheck {
        let problems = settings.policy.violations(of: password, userID: userID)
        if !problems.isEmpty { return .violatesPolicy(problems) }
        let history = try store.read { try $0.passwords(userID: userID, limit: settings.historyDepth) }
        if history.contains(where: { settings.hasher.verify(password, against: $0.hash) }) { return .reused }
        return .acceptable
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

    func storePassword(_ tx: any StoreWriter, userID: String, hash: String) throws {
        try tx.insert(PasswordRecord(userID: userID, hash: hash, createdAt: clock()))
        try tx.prunePasswords(userID: userID, keep: max(1, settings.historyDepth))
        guard var user = try tx.user(userID) else { throw StoreError.notFound }
        user.passwordExpired = false
        try tx.update(user)
    }
}
