#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, with the C error number.
public struct SystemError: Error, CustomStringConvertible {
    public let operation: String
    public let errno: Int32
    public init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }
    public var description: String { "\(operation): \(String(cString: strerror(errno)))" }
}
