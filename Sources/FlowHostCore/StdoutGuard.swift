import FlowHostPOSIX
import JSONRPC

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps stdout for protocol frames only.
///
/// The real stdout is duplicated onto a private descriptor (close-on-exec, so
/// children never inherit it) that only the frame writer uses; descriptor 1
/// is then pointed at stderr. A stray `print` or `printf` in a plugin, or in
/// any library, lands on stderr instead of corrupting a frame.
public enum StdoutGuard {
    /// Returns the private descriptor for frames.
    public static func engage() throws -> Int32 {
        let frames = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        guard frames >= 0 else { throw SystemError(operation: "fcntl(F_DUPFD_CLOEXEC)", errno: errno) }
        guard dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else { throw SystemError(operation: "dup2", errno: errno) }
        return frames
    }
}
