#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// When a lost server connection may be tried again: at once the first
/// time, then after 100 ms, doubling to 5 s, until one try succeeds. Shared
/// by the store's connection and the change feed's LISTEN connection.
/// Used by one thread at a time (its owner's).
struct ReconnectBackoff {
    private var nextTry: UInt64 = 0
    private var pause: UInt64 = 100_000_000
    static let longestPause: UInt64 = 5_000_000_000

    /// Whether a try is due now.
    var isDue: Bool { Self.now() >= nextTry }

    mutating func succeeded() {
        nextTry = 0
        pause = 100_000_000
    }

    mutating func failed() {
        nextTry = Self.now() + pause
        pause = min(pause * 2, Self.longestPause)
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
