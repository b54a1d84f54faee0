#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private folder (mode 0700) under TMPDIR, else /tmp, removed with what
/// is in it when its one owner goes: the throw-away stores of tests and of
/// `TestHost`.
public final class TemporaryFolder {
    public let path: String

    /// A new folder named `<prefix>-XXXXXX`.
    public init(prefix: String = "flowhost-test") throws(SystemError) {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SystemError(operation: "mkdtemp in \(base)", errno: errno)
        }
        path = String(cString: made)
    }

    deinit { Self.remove(path) }

    /// Removes a folder and everything under it, without following links.
    static func remove(_ folder: String) {
        guard let names = SystemFolder.names(in: folder) else { return }
        for name in names {
            let path = folder + "/" + name
            var status = stat()
            if lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                remove(path)
            } else {
                unlink(path)
            }
        }
        rmdir(folder)
    }
}
