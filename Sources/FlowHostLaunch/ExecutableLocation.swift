import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the running executable is: its plugins, its contract and its
/// sibling `flowhost-cli` are found from there.
public enum ExecutableLocation {
    /// The running executable's real path, resolved once.
    public static func path() -> String? { resolvedPath }

    private static let resolvedPath: String? = {
        // The kernel's link names the file itself, every link above it
        // resolved: one system call, where `realpath` reads a link per
        // component. A deleted or replaced executable reads "… (deleted)".
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0, length < buffer.count - 1, buffer[0] == CChar(UInt8(ascii: "/")) {
            let path = String(utf8: buffer[..<length].map { UInt8(bitPattern: $0) })
            if !path.hasSuffix(" (deleted)") { return path }
        }
        let first = ProcessArguments.programName
        let argument = realpath("/proc/self/exe", nil) ?? (first.map { strchr($0, Int32(UInt8(ascii: "/"))) != nil } == true ? realpath(first, nil) : nil)
        guard let argument else { return nil }
        defer { free(argument) }
        return String(cString: argument)
    }()

    public static func directory() -> String? {
        path().map { path in path.folderPart ?? path }
    }

    public static func workingDirectory() -> String {
        guard let folder = getcwd(nil, 0) else { return "." }
        defer { free(folder) }
        return String(cString: folder)
    }
}
