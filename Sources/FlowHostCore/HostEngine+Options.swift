/// What the operator may tune of an engine (limits and timeouts).
extension HostEngine {
    public struct Options: Sendable {
        public var maxFrameBytes = 1 << 20
        public var maxNestingDepth = 64
        public var clientRequestTimeoutMilliseconds: UInt32 = 60_000
        /// Host requests waiting for the client at once; more are refused.
        public var maxClientRequestsInFlight = 16
        /// An open challenge nobody answers expires after this long (0: never);
        /// a resting challenge (`getUser`) never does.
        public var challengeTimeoutMilliseconds: UInt64 = 300_000
        /// Service calls in flight at once, host-wide.
        public var maxServiceCallsInFlight = 64
        public var hostName = "flowhost"
        public var hostVersion = "0.1.0"
        public init() {}
    }
}
