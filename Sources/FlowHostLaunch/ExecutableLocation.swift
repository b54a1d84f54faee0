#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the running executable is: its plugins, its contract and its
/// sibling `flowhost-cli` are found from there.
public enum ExecutableLocation {
    /// The running executable's real path (Linux: /proc/self/exe), resolved
    /// once: `realpath` reads each component's link.
    public static func path() -> String? { resolvedPath }

    private static let resolvedPath: String? = {
        let argument = realpath("/proc/self/exe", nil) ?? (CommandLine.arguments[0].contains("/") ? realpath(CommandLine.arguments[0], nil) : nil)
        guard let argument else { return nil }
        defer { free(argument) }
        return String(cString: argument)
    }()

    public static func directory() -> String? {
        path().map { path in String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
    }

    public static func workingDirectory() -> String {
        guard let folder = getcwd(nil, 0) else { return "." }
        defer { free(folder) }
        return String(cString: folder)
    }
}
