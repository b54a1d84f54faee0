#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and writes on POSIX calls (the host avoids Foundation:
/// it would double its memory and add milliseconds to every start).
public enum SystemFile {
    public static func read(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(operation: "open \(path)", errno: errno) }
        defer { close(fd) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError(operation: "read \(path)", errno: errno)
            }
            if count == 0 { return contents }
            contents += chunk[0..<count]
        }
    }

    /// Creates `path` with `mode` holding `bytes`, all at once: fails with
    /// EEXIST if it exists, and no reader ever sees it short. The bytes go
    /// to a private temporary file beside it, are synced, and are then
    /// linked in under the name (link, unlike rename, never replaces a file
    /// another process made first); the folder is synced last.
    public static func create(_ path: String, bytes: [UInt8], mode: mode_t) throws(SystemError) {
        let temporary = path + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw SystemError(operation: "create \(temporary)", errno: errno) }
        defer { unlink(temporary) }
        do throws(SystemError) {
            try writeAll(fd, bytes)
            guard fsync(fd) == 0 else { throw SystemError(operation: "fsync \(temporary)", errno: errno) }
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        guard link(temporary, path) == 0 else { throw SystemError(operation: "create \(path)", errno: errno) }
        syncFolder(of: path)
    }

    /// Makes a link or an unlink in the folder of `path` durable (best effort).
    public static func syncFolder(of path: String) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let fd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// Writes every byte, retrying short writes and EINTR.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError(operation: "write", errno: errno)
            }
            offset += written
        }
    }

}
