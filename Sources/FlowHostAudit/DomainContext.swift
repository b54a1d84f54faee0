import FlowHostStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What every domain service is made with: the store, the one clock, the
/// audit log on that clock, and the change feed's bell. The host, the admin
/// CLI and the tests each make one context and hand it to the services they
/// need; no service is the way to reach another's parts.
///
/// Used from one thread at a time, as the services are (the host's loop, or
/// the admin command); `ringFeed` is set once, before the first use.
public final class DomainContext {
    public let store: any FlowStore
    public let clock: () -> Int64
    public let audit: AuditLog
    /// Rings the change feed's wake-up after a commit that appended to the
    /// feed, so other hosts learn at once (nil: nobody listens).
    public var ringFeed: (() -> Void)?

    public init(store: any FlowStore, clock: @escaping () -> Int64 = DomainContext.now) {
        self.store = store
        self.clock = clock
        audit = AuditLog(clock: clock)
    }

    /// Seconds since the epoch.
    public static func now() -> Int64 { Int64(time(nil)) }
}
