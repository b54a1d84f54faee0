import FlowHostAccounts
import FlowHostDevices
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// The SDK's `forgotPassword(userID)`: a user who cannot remember the
/// password resets it on one of their registered devices, proving the
/// device's key and a code through the delivery channel, then setting a new
/// password (or enrolling LDA on this device instead). Off unless the
/// operator enables it (`passwords.forgotPassword`; 170 while off).
///
/// The code is a device code, as `resetBlockedUserAccount`'s is (hashed at
/// rest, 3 tries of its own, replaced by the next, rate-limited like a
/// resend): a wrong code never costs the user's password or activation
/// attempts. What a completed reset does (spec §10, SECURITY.md): every
/// session of the user ends, on every device, through the feed; the
/// password attempts are restored, and a block by password attempts lifted,
/// only then, after the code and the new secret were accepted; the user's
/// other devices stay registered (they log in with the new password). An
/// operator's block, or one by activation attempts, refuses every step.
///
/// Used from one thread at a time, like the `CredentialService` it wraps.
public final class ForgotPassword {
    let credentials: CredentialService

    public init(_ credentials: CredentialService) { self.credentials = credentials }

    static let action = "account.forgot-password"
    /// The session's workflow, the SDK's `currentWorkFlow` for a reset.
    public static let workflow = "ForgotCredentials"

    /// Who may reset here: the feature on, an active user who is not blocked
    /// by the operator or by activation attempts, registered on this device.
    func refusal(_ tx: any StoreReader, _ user: UserRecord, _ deviceID: String) throws -> Refusal? {
        guard credentials.settings.forgotPasswordEnabled else { return .forgotPasswordDisabled }
        if let reason = user.blockReason, reason != .passwordAttempts { return .blocked(reason) }
        guard user.status == .active, try tx.device(userID: user.userID, deviceID: deviceID)?.status == .active else {
            return .notRegisteredOnDevice
        }
        return nil
    }

    /// The device's key first, then who may reset: a device that has not
    /// proved the user's key is told only that (126, `device-not-proven`),
    /// the same for an unknown user, a user of other devices and a blocked
    /// one, so it learns nothing about the user. The feature being off (170)
    /// says nothing about anyone and comes before.
    func unprovenOrRefused(_ tx: any StoreWriter, _ userID: String, _ deviceID: String, proof: String) throws -> Refusal? {
        guard credentials.settings.forgotPasswordEnabled else { return .forgotPasswordDisabled }
        if let unproven = try credentials.possessionRefusal(tx, userID: userID, deviceID: deviceID, .proof(proof), allowsBinding: false) {
            return unproven
        }
        guard let user = try tx.user(userID) else { throw StoreError.notFound }
        return try refusal(tx, user, deviceID)
    }

    /// The code to the user's delivery channel, once the device has proved
    /// its key (`proof`, from `device.prove`, spent here): a device that
    /// cannot prove it has a code sent to no one.
    public func sendCode(_ userID: String, deviceID: String, proof: String) throws -> ResendOutcome {
        let credentials = credentials
        let refused: Refusal? = try credentials.write { tx in
            let refused = try unprovenOrRefused(tx, userID, deviceID, proof: proof)
            if let refused { try credentials.audit.count(tx, try tx.user(userID) == nil ? nil : userID, Self.action, refused.name) }
            return refused
        }
        if let refused { return .refused(refused) }
        return try credentials.sendDeviceCode(userID, deviceID: deviceID, action: Self.action, refusal: refusal)
    }

    /// Checks the code; the right one gives the grant that `complete` spends.
    /// Without a live reset code for this user and device (one is sent only
    /// to a device that proved the key) the answer is `noCode` whoever the
    /// user is, so a guess tells apart no users either.
    public func verifyCode(_ userID: String, code: String, deviceID: String) throws -> CredentialService.DeviceCodeCheck {
        let now = credentials.clock()
        let live = try credentials.store.read { try $0.deviceCode(userID: userID, deviceID: deviceID, purpose: Self.action, now: now) }
        guard live != nil else { return .noCode }
        return try credentials.checkDeviceCode(userID, code: code, deviceID: deviceID, action: Self.action, refusal: refusal)
    }

    /// A new password that breaks the policy or the history, given to `complete`.
    public struct UnacceptablePassword: Error, Equatable {
        public let check: NewPasswordCheck
    }

    /// The reset, in one transaction: the device proves its key again (the
    /// session it opens is a login), the grant is spent, the new password
    /// stored or LDA enrolled on this device, the password attempts
    /// restored, every session of the user ended, and this device's session
    /// opened. The password is held to the policy and the history here too
    /// (the flow asked `checkNewPassword` before): one that breaks either
    /// throws `UnacceptablePassword` before anything is spent or changed.
    public func complete(
        _ userID: String, deviceID: String, grant: String, proof: String, password: String?, ldaType: Int?
    ) throws -> CompletionOutcome {
        let credentials = credentials
        if let password {
            let check = try credentials.checkNewPassword(userID, password)
            guard check == .acceptable else { throw UnacceptablePassword(check: check) }
        }
        let hash = try password.map { try credentials.settings.hasher.hash($0) }
        let now = credentials.clock()
        return try credentials.write { tx in
            if let refused = try unprovenOrRefused(tx, userID, deviceID, proof: proof) {
                try credentials.audit.count(tx, try tx.user(userID) == nil ? nil : userID, Self.action, refused.name)
                return .refused(refused)
            }
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            guard try credentials.spendGrant(tx, userID: userID, grant: grant, purpose: Self.action, now: now) else {
                try credentials.audit.count(tx, userID, Self.action, "grant-invalid")
                return .grantInvalid
            }
            if let hash { try credentials.storePassword(tx, userID: userID, hash: hash) }
            if let ldaType, var device = try tx.device(userID: userID, deviceID: deviceID) {
                device.ldaType = ldaType
                try tx.save(device)
            }
            user = try tx.user(userID) ?? user
            if user.blockReason == .passwordAttempts { user.blockReason = nil }
            user.passwordAttemptsLeft = credentials.settings.maxPasswordAttempts
            try tx.update(user)
            if try credentials.sessionLedger.endAll(tx, userID: userID, reason: "credentials-reset") { credentials.feedAppended = true }
            try credentials.audit.row(
                tx, userID, deviceID, Self.action, "reset", ["credential": .string(ldaType == nil ? "password" : "lda")])
            return .completed(try credentials.sessionLedger.open(tx, userID: userID, deviceID: deviceID, workflow: Self.workflow))
        }
    }
}
