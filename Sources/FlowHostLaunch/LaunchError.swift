/// Why the host could not start, and how the command line reports it.
public struct LaunchError: Error, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A wrong option or setting: reported with the usage (status 64).
        case usage
        /// Stop with this status, having said why already (a refused flow with --strict).
        case exit(Int32)
    }

    public let kind: Kind
    public let description: String

    public static func usage(_ message: String) -> LaunchError { LaunchError(kind: .usage, description: message) }
    public static func exit(_ status: Int32) -> LaunchError { LaunchError(kind: .exit(status), description: "exit status \(status)") }
}
