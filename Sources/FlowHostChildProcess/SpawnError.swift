#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child that could not be started: at which step, and the C error number.
public struct SpawnError: Error, CustomStringConvertible {
    public enum Step: Sendable {
        /// Making a pipe for it.
        case pipe
        /// Copying a descriptor it was to be given.
        case descriptor
        /// Starting the program (not found, not executable, …).
        case start
    }

    public let program: String
    public let step: Step
    public let errno: Int32

    public var description: String {
        let reason = String(cString: strerror(errno))
        switch step {
        case .pipe: return "cannot start \(program): cannot make a pipe: \(reason)"
        case .descriptor: return "cannot start \(program): cannot copy a descriptor: \(reason)"
        case .start: return "cannot start \(program): \(reason)"
        }
    }
}
