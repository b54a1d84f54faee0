#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place a C call's return code becomes a `SystemError`, for the
/// two conventions the C library uses.
public enum SystemCall {
    /// A call that returns -1 (any negative value) and sets errno on failure.
    @discardableResult
    public static func check(_ operation: String, _ result: Int32) throws(SystemError) -> Int32 {
        guard result >= 0 else { throw SystemError(operation: operation, errno: errno) }
        return result
    }

    /// A call that returns 0, or the error number itself (the `_r` lookups, pthreads).
    public static func checkStatus(_ operation: String, _ status: Int32) throws(SystemError) {
        guard status == 0 else { throw SystemError(operation: operation, errno: status) }
    }
}
