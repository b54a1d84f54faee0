/// The accounts domain's records: users and the devices registered to them.
/// Every other domain that names a user builds on these tables.

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
