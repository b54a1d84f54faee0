import FlowHostAccounts
import FlowHostSessions
import FlowHostStore
import FlowHostVocabulary

/// What a user looks like to a flow on one device.
public struct UserState: Sendable, Equatable {
    public var userID: String
    public var isActive: Bool
    /// The SDK status a blocked user gets at `setUser` (138 or 141), if blocked.
    public var blockedStatus: Int?
    public var registeredOnDevice: Bool
    public var ldaType: Int?
    public var hasPassword: Bool
    public var passwordExpired: Bool
    public var activationAttemptsLeft: Int
    public var passwordAttemptsLeft: Int
    /// The pending code's verification key, if an unused, unexpired one exists.
    public var verificationKey: String?
}

public struct IssuedCode: Sendable, Equatable {
    public let userID: String
    public let activationCode: String
    public let verificationKey: String
    public let expiresAt: Int64
}

/// Why a step cannot go on for this user now. Every step re-reads the user
/// inside its own write transaction, so an operator's block or another
/// device's activation between two steps is seen by the next one.
public enum Refusal: Sendable, Equatable {
    case blocked(BlockReason)
    /// An activation step for a user who was activated meanwhile, and whose
    /// registration includes this device.
    case alreadyActive
    /// The user is not active on this device (active elsewhere only, or the
    /// registration of this device ended).
    case notRegisteredOnDevice
    /// The device did not prove it holds its key (no valid proof, a revoked
    /// key, or a device registered before keys that only ever used LDA).
    case deviceNotProven
    /// A password was given for a user who has none (activated with LDA
    /// only): nothing is counted for a factor that does not exist.
    case noPassword
    /// `resetBlockedUserAccount` for a user who is not blocked (nothing to lift).
    case notBlocked
    /// `forgotPassword` while the operator has not enabled it (`passwords.forgotPassword`).
    case forgotPasswordDisabled

    /// The SDK status the client gets with `getUser`.
    public var status: Int {
        switch self {
        case .blocked(.passwordAttempts): SDKCode.blockedByPasswordAttempts
        case .blocked: SDKCode.blockedByActivationAttempts
        case .alreadyActive: SDKCode.userAlreadyActive
        case .notRegisteredOnDevice, .deviceNotProven: SDKCode.deviceNotRegistered
        case .noPassword: SDKCode.authenticationFailed
        case .notBlocked: SDKCode.success
        case .forgotPasswordDisabled: SDKCode.featureNotSupported
        }
    }

    /// A short name for the audit log and the services' `reason` field.
    public var name: String {
        switch self {
        case .blocked(let reason): "blocked-\(reason.rawValue)"
        case .alreadyActive: "already-active"
        case .notRegisteredOnDevice: "not-registered"
        case .deviceNotProven: "device-not-proven"
        case .noPassword: "no-password"
        case .notBlocked: "not-blocked"
        case .forgotPasswordDisabled: "feature-disabled"
        }
    }
}

public enum ActivationOutcome: Sendable, Equatable {
    /// The code was right. `grant` (a secret for this dialogue only) completes
    /// activation once, with `completeActivation`.
    case accepted(grant: String)
    case wrong(attemptsLeft: Int)
    case expired(attemptsLeft: Int)
    /// The code was right but a resend replaced it: no attempt is spent.
    case superseded(attemptsLeft: Int)
    /// The code was right but was used meanwhile (another device won the race).
    case alreadyUsed(attemptsLeft: Int)
    case refused(Refusal)
}

public enum ResendOutcome: Sendable, Equatable {
    case sent(verificationKey: String, attemptsLeft: Int)
    /// The interval between resends, or the cap per code lifetime.
    case tooSoon(retryAfterSeconds: Int64)
    case refused(Refusal)
}

public enum CompletionOutcome: Sendable, Equatable {
    case completed(OpenedSession)
    /// The grant was never given, already spent, voided by the operator, or too old.
    case grantInvalid
    case refused(Refusal)
}

public enum NewPasswordCheck: Sendable, Equatable {
    case acceptable
    /// Status 190, with what is wrong.
    case violatesPolicy([PolicyViolation])
    /// Status 164.
    case reused
}

public enum PasswordOutcome: Sendable, Equatable {
    case accepted(expired: Bool)
    case wrong(attemptsLeft: Int)
    case refused(Refusal)
}

public enum PasswordUpdateOutcome: Sendable, Equatable {
    case updated
    case wrongCurrent(attemptsLeft: Int)
    case refused(Refusal)
    case rejected(NewPasswordCheck)
}

public enum SessionOutcome: Sendable, Equatable {
    case opened(OpenedSession)
    case refused(Refusal)
}

/// A device key made at activation (or at a legacy device's first password
/// login): its id, its public half, and who holds the secret half.
public struct NewDeviceKey: Sendable, Equatable {
    public let keyID: String
    public let publicKey: [UInt8]
    /// "host" or "platform".
    public let custody: String

    public init(keyID: String, publicKey: [UInt8], custody: String) {
        self.keyID = keyID
        self.publicKey = publicKey
        self.custody = custody
    }
}

/// How a login step shows the device holds its key.
public enum DevicePossession: Sendable, Equatable {
    /// A proof from `DeviceProofs.finish`, spent by the step.
    case proof(String)
    /// A device registered before keys: a password login binds this new key.
    case bind(NewDeviceKey)
}

public enum ApprovedActivationOutcome: Sendable, Equatable {
    case completed(OpenedSession)
    /// The approval is used up; the device must ask again.
    case wrongPassword(attemptsLeft: Int)
    /// The password was right but has expired: nothing was used or
    /// registered; the device asks for a replacement (challengeMode 4) and
    /// completes again with it.
    case passwordExpired
    /// The new password (a first one, or an expired one's replacement) is
    /// not acceptable; nothing was used or registered.
    case passwordRejected(NewPasswordCheck)
    case refused(Refusal)
}

/// The new device's own password factor.
public enum NewDevicePassword: Sendable, Equatable {
    /// The user's current password; with `replacement`, a new one for a
    /// current password that has expired.
    case verify(String, replacement: String?)
    /// A first password, for a user who has none (activated with LDA only).
    case first(String)
}

/// What lets a new device of an active user join: an approval answered on a
/// registered device, or the grant of a code sent for this device.
public enum NewDeviceAuthorization: Sendable, Equatable {
    case approval(String)
    case codeGrant(String)
}
