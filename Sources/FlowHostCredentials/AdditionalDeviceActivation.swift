import FlowHostAccounts
import FlowHostAudit
import FlowHostNotifications
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// A known user's additional device: the code fallback (a code that works
/// on that device only) and the completion, after an approval from one of
/// the user's registered devices or that code. Its own domain over the
/// credentials' transaction-level steps (`CredentialService+Steps`), so
/// the first-device activation in `CredentialService` does not grow with it.
///
/// Used from one thread at a time, like the `CredentialService` it wraps.
public final class AdditionalDeviceActivation {
    let credentials: CredentialService

    public init(_ credentials: CredentialService) { self.credentials = credentials }

    var store: any FlowStore { credentials.store }
    var settings: CredentialSettings { credentials.settings }
    var audit: AuditLog { credentials.audit }
    var clock: () -> Int64 { credentials.clock }

    /// An additional device, approved from one of the user's registered
    /// devices: the accepted approval (a notification the user answered on a
    /// proven device) is used once, in the same transaction that registers
    /// the device, its key and a session. The device's own authentication is
    /// the user's password (judged by `judgePassword`, as at every login:
    /// counted, and an expired one must be replaced first), a first password
    /// for a user who has none, or an LDA enrollment.
    public func complete(
        _ userID: String, deviceID: String, deviceName: String, authorization: NewDeviceAuthorization, password: NewDevicePassword?,
        ldaType: Int?, key: NewDeviceKey, workflow: String
    ) throws -> ApprovedActivationOutcome {
        let now = clock()
        let (_, current) = try userAndPasswordForActivation(userID)
        // Hashing runs outside the transaction; the transaction re-checks
        // that the hash judged is still the current one.
        var matches = false
        var newHash: String?
        switch password {
        case .verify(let typed, let replacement):
            matches = current.map { settings.hasher.verify(typed, against: $0.hash) } ?? false
            if let replacement, matches {
                let check = try credentials.checkNewPassword(userID, replacement)
                guard check == .acceptable else { return .passwordRejected(check) }
                newHash = try settings.hasher.hash(replacement)
            }
        case .first(let typed):
            let check = try credentials.checkNewPassword(userID, typed)
            guard check == .acceptable else { return .passwordRejected(check) }
            newHash = try settings.hasher.hash(typed)
        case nil:
            break
        }
        do {
            return try credentials.write { tx in
                guard let user = try tx.user(userID) else { throw StoreError.notFound }
                if let reason = user.blockReason { return .refused(.blocked(reason)) }
                guard user.status == .active else { return .refused(.notRegisteredOnDevice) }
                if try tx.device(userID: userID, deviceID: deviceID)?.status == .active { return .refused(.alreadyActive) }
                // The authorization first: without a valid one nothing is judged or counted.
                guard try self.authorize(tx, authorization, userID: userID, now: now) else {
                    try audit.count(tx, userID, "activation.approved", "authorization-invalid")
                    return .refused(.deviceNotProven)
                }
                let hasPassword = try tx.passwords(userID: userID, limit: 1).first != nil
                var replacesExpired = false
                switch password {
                case .first where hasPassword:
                    // Set meanwhile elsewhere: this device must verify it instead.
                    throw KeepAuthorization(outcome: .refused(.noPassword))
                case .verify:
                    switch try credentials.judgePassword(
                        tx, user, deviceID: deviceID, matches: matches, checked: current, now: now, action: "activation.approved")
                    {
                    case .refused(.noPassword): throw KeepAuthorization(outcome: .refused(.noPassword))
                    case .refused(let refusal): return .refused(refusal)
                    case .wrong(let left): return .wrongPassword(attemptsLeft: left)  // the authorization stays used: this attempt ends
                    case .accepted(let expired):
                        if expired && newHash == nil { throw KeepAuthorization(outcome: .passwordExpired) }
                        replacesExpired = expired
                    }
                case .first, nil:
                    break
                }
                if let newHash, replacesExpired || !hasPassword {
                    try credentials.storePassword(tx, userID: userID, hash: newHash)
                    try audit.row(tx, userID, deviceID, hasPassword ? "password.update" : "password.set", "ok")
                }
                try credentials.registerDevice(tx, userID: userID, deviceID: deviceID, name: deviceName, ldaType: ldaType, key: key, now: now)
                let how: String = if case .approval = authorization { "approval" } else { "code" }
                try audit.row(tx, userID, deviceID, "activation.approved", "ok", ["authorization": .string(how), "workflow": .string(workflow)])
                return .completed(try credentials.sessionLedger.open(tx, userID: userID, deviceID: deviceID, workflow: workflow))
            }
        } catch let kept as KeepAuthorization {
            return kept.outcome
        }
    }

    /// Rolls the completion back, so the approval or grant it used stays for
    /// the next try: the password step could not be judged yet (none to
    /// verify, an expired one to replace), which costs the user nothing.
    private struct KeepAuthorization: Error {
        let outcome: ApprovedActivationOutcome
    }

    /// Uses the approval or the code's grant once; false when it is not (or no longer) valid.
    private func authorize(_ tx: any StoreWriter, _ authorization: NewDeviceAuthorization, userID: String, now: Int64) throws -> Bool {
        switch authorization {
        case .approval(let uuid): try tx.consumeApproval(uuid, userID: userID, at: now)
        case .codeGrant(let grant): try credentials.spendGrant(tx, userID: userID, grant: grant, purpose: Self.codeAction, now: now)
        }
    }

    /// Device activation's fallback: a fresh code for an active user's new
    /// device, sealed into the outbox for delivery (as a resend is), rate-
    /// limited and capped the same way. The code works only on that device.
    public func sendCode(_ userID: String, deviceID: String) throws -> ResendOutcome {
        try credentials.sendDeviceCode(userID, deviceID: deviceID, action: Self.codeAction, refusal: newDeviceRefusal)
    }

    static let codeAction = "activation.device-code"

    /// Checks a device code: accepted gives the grant that completes this device's activation.
    public func verifyCode(_ userID: String, code: String, deviceID: String) throws -> ActivationOutcome {
        switch try credentials.checkDeviceCode(userID, code: code, deviceID: deviceID, action: Self.codeAction, refusal: newDeviceRefusal) {
        case .accepted(let grant): .accepted(grant: grant)
        case .wrong(let left): .wrong(attemptsLeft: left)
        case .noCode: .expired(attemptsLeft: 0)
        case .refused(let refusal): .refused(refusal)
        }
    }

    /// What a new device of an active user needs: the user active, not
    /// blocked, and this device not registered for them yet.
    func newDeviceRefusal(_ tx: any StoreReader, _ user: UserRecord, deviceID: String) throws -> Refusal? {
        if let reason = user.blockReason { return .blocked(reason) }
        guard user.status == .active else { return .notRegisteredOnDevice }
        if try tx.device(userID: user.userID, deviceID: deviceID)?.status == .active { return .alreadyActive }
        return nil
    }

    func userAndPasswordForActivation(_ userID: String) throws -> (UserRecord, PasswordRecord?) {
        guard let found = try store.read({ tx in try tx.user(userID).map { ($0, try tx.passwords(userID: userID, limit: 1).first) } })
        else { throw StoreError.notFound }
        return found
    }
}
