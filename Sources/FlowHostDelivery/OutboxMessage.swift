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
