/// The credentials domain's records: password hashes and activation codes
/// (hashes too), never a secret in the clear.

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
    /// What the code may be used for: `activation` (the operator's code for a
    /// first device), or the action of a device code (a new device's
    /// fallback, `resetBlockedUserAccount`, `forgotPassword`). A check for
    /// another purpose never finds it.
    public var purpose: String

    public init(
        id: Int64? = nil, userID: String, codeHash: String, verificationKey: String, createdAt: Int64, expiresAt: Int64,
        usedAt: Int64? = nil, supersededAt: Int64? = nil, forDevice: String? = nil,
        purpose: String = ActivationCodeRecord.activation
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
        self.purpose = purpose
    }

    /// The purpose of the operator's activation codes.
    public static let activation = "activation"
}
