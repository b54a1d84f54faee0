/// What the store keeps. Plain values: each backend maps them to its tables.
/// No record ever holds a secret in the clear: passwords and codes are hashes,
/// outbox messages are sealed.

/// Why a user is blocked; each maps to the SDK status the user sees.
public enum BlockReason: String, Sendable, Equatable {
    /// Activation-code attempts exhausted (status 138).
    case activationAttempts = "activation-attempts"
    /// Password-verify attempts exhausted (status 141).
    case passwordAttempts = "password-attempts"
    /// Blocked by an operator (status 138).
    case admin
}

public enum UserStatus: String, Sendable, Equatable {
    /// Created; not yet activated on any device.
    case pending
    /// Activated on at least one device.
    case active
}

public struct UserRecord: Sendable, Equatable {
    public var userID: String
    public var status: UserStatus
    public var blockReason: BlockReason?
    public var activationAttemptsLeft: Int
    public var passwordAttemptsLeft: Int
    public var passwordExpired: Bool
    public var createdAt: Int64
    /// Last time `resendActivationCode` issued a code (rate limit).
    public var lastResendAt: Int64?
    /// Start of the window in which client resends are counted (the cap).
    public var resendWindowStart: Int64?
    /// Client resends in the current window.
    public var resendCount: Int

    public init(
        userID: String, status: UserStatus = .pending, blockReason: BlockReason? = nil, activationAttemptsLeft: Int,
        passwordAttemptsLeft: Int, passwordExpired: Bool = false, createdAt: Int64, lastResendAt: Int64? = nil,
        resendWindowStart: Int64? = nil, resendCount: Int = 0
    ) {
        self.userID = userID
        self.status = status
        self.blockReason = blockReason
        self.activationAttemptsLeft = activationAttemptsLeft
        self.passwordAttemptsLeft = passwordAttemptsLeft
        self.passwordExpired = passwordExpired
        self.createdAt = createdAt
        self.lastResendAt = lastResendAt
        self.resendWindowStart = resendWindowStart
        self.resendCount = resendCount
    }
}

/// RDNADeviceStatus names.
public enum DeviceStatus: String, Sendable, Equatable {
    case active = "ACTIVE"
    case blocked = "BLOCKED"
    case deleted = "DELETE"
}

public struct DeviceRecord: Sendable, Equatable {
    public var userID: String
    public var deviceID: String
    public var name: String
    public var status: DeviceStatus
    /// The RDNALDACapabilities value enrolled on this device, if any.
    public var ldaType: Int?
    public var createdAt: Int64
    public var lastAccessAt: Int64

    public init(userID: String, deviceID: String, name: String, status: DeviceStatus = .active, ldaType: Int? = nil, createdAt: Int64, lastAccessAt: Int64) {
        self.userID = userID
        self.deviceID = deviceID
        self.name = name
        self.status = status
        self.ldaType = ldaType
        self.createdAt = createdAt
        self.lastAccessAt = lastAccessAt
    }
}

public struct PasswordRecord: Sendable, Equatable {
    public var userID: String
    /// A PHC-format Argon2id string (`$argon2id$v=19$m=…`).
    public var hash: String
    public var createdAt: Int64

    public init(userID: String, hash: String, createdAt: Int64) {
        self.userID = userID
        self.hash = hash
        self.createdAt = createdAt
    }
}

public struct ActivationCodeRecord: Sendable, Equatable {
    public var id: Int64?
    public var userID: String
    public var codeHash: String
    /// Shown to the user beside the code, so they can match the message.
    public var verificationKey: String
    public var createdAt: Int64
    public var expiresAt: Int64
    /// When the code was accepted (or retired by the operator): it never works again.
    public var usedAt: Int64?
    /// When a client's resend replaced it: typing it then costs no attempt.
    public var supersededAt: Int64?
    /// The new device it was sent for (device activation's fallback), if any.
    public var forDevice: String?

    public init(
        id: Int64? = nil, userID: String, codeHash: String, verificationKey: String, createdAt: Int64, expiresAt: Int64,
        usedAt: Int64? = nil, supersededAt: Int64? = nil, forDevice: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.codeHash = codeHash
        self.verificationKey = verificationKey
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.supersededAt = supersededAt
        self.forDevice = forDevice
    }
}

public struct SessionRecord: Sendable, Equatable {
    public var sessionID: String
    public var userID: String
    public var deviceID: String
    public var workflow: String
    public var createdAt: Int64
    /// The last time the session was used (its idle lifetime counts from here).
    public var lastSeenAt: Int64
    public var endedAt: Int64?
    /// Why it ended: `logoff`, `blocked`, `idle`, `lifetime`, `host-exit`, …
    public var endReason: String?

    public init(
        sessionID: String, userID: String, deviceID: String, workflow: String, createdAt: Int64, lastSeenAt: Int64? = nil,
        endedAt: Int64? = nil, endReason: String? = nil
    ) {
        self.sessionID = sessionID
        self.userID = userID
        self.deviceID = deviceID
        self.workflow = workflow
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt ?? createdAt
        self.endedAt = endedAt
        self.endReason = endReason
    }
}

/// One line of the append-only audit log. Never a secret in any field.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64?
    public var at: Int64
    public var userID: String?
    public var deviceID: String?
    public var action: String
    public var outcome: String
    /// Non-secret context as JSON text (status codes, attempts left, …).
    public var detail: String?

    public init(id: Int64? = nil, at: Int64, userID: String?, deviceID: String?, action: String, outcome: String, detail: String? = nil) {
        self.id = id
        self.at = at
        self.userID = userID
        self.deviceID = deviceID
        self.action = action
        self.outcome = outcome
        self.detail = detail
    }
}

/// A message waiting for delivery (an activation code by mail or SMS). Its
/// body is sealed with a key that lives outside the store.
public struct OutboxMessage: Sendable, Equatable {
    public var id: Int64?
    public var userID: String
    public var kind: String
    public var sealedBody: [UInt8]
    public var createdAt: Int64
    public var deliveredAt: Int64?
    /// Failed delivery attempts so far.
    public var attempts: Int
    /// Why the last attempt failed (never a secret).
    public var lastError: String?
    /// When delivery was given up after the last allowed attempt.
    public var failedAt: Int64?

    public init(
        id: Int64? = nil, userID: String, kind: String, sealedBody: [UInt8], createdAt: Int64, deliveredAt: Int64? = nil,
        attempts: Int = 0, lastError: String? = nil, failedAt: Int64? = nil
    ) {
        self.id = id
        self.userID = userID
        self.kind = kind
        self.sealedBody = sealedBody
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
        self.attempts = attempts
        self.lastError = lastError
        self.failedAt = failedAt
    }
}

/// A count of like events in one hour: what the audit keeps of events that
/// anyone can cause without proving anything (an unknown user id, a reset, a
/// refused resend), so that sending many of them costs the store one row.
public struct AuditCount: Sendable, Equatable {
    /// The hour, as seconds since the epoch rounded down to a multiple of 3600.
    public var hour: Int64
    /// A known user's id; "" when the event names no user (or an unknown one).
    public var userID: String
    public var action: String
    public var outcome: String
    public var count: Int64
    public var lastAt: Int64

    public init(hour: Int64, userID: String, action: String, outcome: String, count: Int64, lastAt: Int64) {
        self.hour = hour
        self.userID = userID
        self.action = action
        self.outcome = outcome
        self.count = count
        self.lastAt = lastAt
    }
}
