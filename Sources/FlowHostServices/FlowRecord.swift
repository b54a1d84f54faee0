/// A flow's durable value under its own namespace (`records.*`), versioned
/// for compare-and-set.
public struct FlowRecord: Sendable, Equatable {
    public let collection: String
    public let key: String
    /// JSON text.
    public let value: String
    public let version: Int64
    public let updatedAt: Int64
}
