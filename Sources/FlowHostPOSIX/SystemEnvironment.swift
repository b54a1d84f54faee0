#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process environment, without Foundation's ProcessInfo.
public enum SystemEnvironment {
    /// The variable's value, if set.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
