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

public enum ActivationOutcome: Sendable, Equatable {
    case accepted
    case wrong(attemptsLeft: Int)
    case expired(attemptsLeft: Int)
    case blocked
}

public enum ResendOutcome: Sendable, Equatable {
    case sent(verificationKey: String, attemptsLeft: Int)
    case tooSoon(retryAfterSeconds: Int64)
    case blocked
}

public enum NewPasswordCheck: Sendable, Equatable {
    case acceptable
    /// Status 190, with what is wrong.
    case violatesPolicy([String])
    /// Status 164.
    case reused
}

public enum PasswordOutcome: Sendable, Equatable {
    case accepted(expired: Bool)
    case wrong(attemptsLeft: Int)
    case blocked
}

public enum PasswordUpdateOutcome: Sendable, Equatable {
    case updated
    case wrongCurrent(attemptsLeft: Int)
    case blocked
    case rejected(NewPasswordCheck)
}
