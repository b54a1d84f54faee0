#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the engine reads time: every deadline and every session fact
/// comes from one clock, so a test can move time instead of waiting.
public protocol HostClock: AnyObject {
    /// Milliseconds on a monotonic clock: deadlines survive wall-clock changes.
    var monotonicMilliseconds: UInt64 { get }
    /// Seconds since the epoch, for facts kept in the store or shown to users.
    var wallSeconds: Int64 { get }
}

/// The machine's clocks.
public final class SystemClock: HostClock {
    public init() {}

    public var monotonicMilliseconds: UInt64 { Self.monotonicMilliseconds() }

    public var wallSeconds: Int64 { Int64(time(nil)) }

    /// Also for code outside an engine (the event loop's poll timeout).
    public static func monotonicMilliseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
    }
}

/// A clock that moves only when told: for tests of timers, expiries and
/// session lifetimes. Touched on the engine's thread only.
public final class ManualClock: HostClock {
    public var monotonicMilliseconds: UInt64
    public var wallSeconds: Int64

    public init(monotonicMilliseconds: UInt64 = 1_000_000, wallSeconds: Int64 = 1_800_000_000) {
        self.monotonicMilliseconds = monotonicMilliseconds
        self.wallSeconds = wallSeconds
    }

    /// Moves both clocks forward.
    public func advance(milliseconds: UInt64) {
        monotonicMilliseconds += milliseconds
        wallSeconds += Int64(milliseconds / 1000)
    }
}
