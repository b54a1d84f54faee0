import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many more descriptors the process may open. Checked before the
/// inspector opens several at once on a token-holder's behalf (the relay to
/// FlyingFox, a panel's host): an accept that fails for want of one does
/// worse than a refusal (FlyingFox stops).
enum Descriptors {
    static func available() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0,
              let open = try? FileManager.default.contentsOfDirectory(atPath: openDirectory)
        else { return Int.max }
        // The listing itself held one while it was read.
        return Int(clamping: limit.rlim_cur) - open.count
    }

    #if os(Linux)
    private static let openDirectory = "/proc/self/fd"
    #else
    private static let openDirectory = "/dev/fd"
    #endif
}
