/// Why the inspector cannot start.
struct InspectorError: Error, CustomStringConvertible {
    enum Kind: Equatable {
        /// A bad command line (exit status 64).
        case usage
        /// The page's files are missing beside the executable.
        case missingPage
        /// The host does not start with the given serve options.
        case hostRefused
    }

    var kind: Kind
    var description: String

    static func usage(_ message: String) -> InspectorError { InspectorError(kind: .usage, description: message) }
}
