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
    /// Milliseconds since the epoch, for facts kept in the store or shown
    /// to users. It may step (back or forward) when the machine's clock is set.
    var wallMilliseconds: Int64 { get }
}

extension HostClock {
    /// Seconds since the epoch, rounded down: what the store keeps.
    public var wallSeconds: Int64 { wallMilliseconds >= 0 ? wallMilliseconds / 1000 : (wallMilliseconds - 999) / 1000 }
}

/// The machine's clocks.
public final class SystemClock: HostClock {
    public init() {}

    public var monotonicMilliseconds: UInt64 { Self.monotonicMilliseconds() }

    public var wallMilliseconds: Int64 { Self.wallMilliseconds() }

    /// Also for code outside an engine (the event loop's poll timeout).
    public static func monotonicMilliseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
    }

    /// The machine's wall clock, in milliseconds since the epoch.
    public static func wallMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

/// A clock that moves only when told: for tests of timers, expiries and
/// session lifetimes. Touched on the engine's thread only.
public final class ManualClock: HostClock {
    public var monotonicMilliseconds: UInt64
    /// Set it to step the wall clock alone, back or forward, as an NTP
    /// correction or an operator would: nothing due on the monotonic clock fires.
    public var wallMilliseconds: Int64

    public init(monotonicMilliseconds: UInt64 = 1_000_000, wallSeconds: Int64 = 1_800_000_000) {
        self.monotonicMilliseconds = monotonicMilliseconds
        self.wallMilliseconds = wallSeconds * 1000
    }

    /// Moves both clocks forward.
    public func advance(milliseconds: UInt64) {
        monotonicMilliseconds += milliseconds
        wallMilliseconds += Int64(milliseconds)
    }
}
