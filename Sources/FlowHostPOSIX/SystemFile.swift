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
        return try readAll(fd, path: path)
    }

    /// `path` read whole, or nil when there is no file there. Opened without
    /// following a link and without waiting on a FIFO; `check` is given the
    /// status of the very descriptor read from (so what it checked is what
    /// is read, with no window between the two) and may refuse by throwing.
    public static func readIfPresent(_ path: String, check: (stat) throws -> Void) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw SystemError(operation: "open \(path)", errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError(operation: "fstat \(path)", errno: errno) }
        try check(info)
        let regular = info.st_mode & S_IFMT == S_IFREG
        return try readAll(fd, path: path, size: Int(info.st_size), endsAtSize: regular)
    }

    /// `endsAtSize`: a regular file, whose read that asked for a byte more
    /// than its size and got exactly its size has met its end (no second
    /// read to see nothing come: one system call fewer per login).
    private static func readAll(_ fd: Int32, path: String, size: Int? = nil, endsAtSize: Bool = false) throws(SystemError) -> [UInt8] {
        // Read into one buffer the file's size (and a byte more, to see that
        // it ended), not through a 64 KiB chunk: key files are 64 bytes,
        // read at every login, and a chunk left their secret in freed memory.
        let expected: Int
        if let size, size > 0 { expected = size } else {
            var info = stat()
            expected = fstat(fd, &info) == 0 && info.st_size > 0 ? Int(info.st_size) : 4096  // /proc files say 0
        }
        var buffer = [UInt8](repeating: 0, count: expected + 1)
        var filled = 0
        while true {
            if filled == buffer.count {
                // It grew since fstat: a larger buffer, and the old one wiped.
                var larger = [UInt8](repeating: 0, count: buffer.count * 2)
                larger.withUnsafeMutableBytes { target in
                    buffer.withUnsafeBytes { source in target.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: source.count) }
                }
                wipe(&buffer)
                buffer = larger
            }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                wipe(&buffer)
                throw SystemError(operation: "read \(path)", errno: errno)
            }
            if count == 0 {
                buffer.removeLast(buffer.count - filled)  // in place: the bytes dropped were never written
                return buffer
            }
            filled += count
            if endsAtSize, let size, size > 0, filled == size {
                buffer.removeLast(buffer.count - filled)
                return buffer
            }
        }
    }

    /// Zeroes `bytes` where they lie, in a way the compiler keeps
    /// (`explicit_bzero`, not `memset`, which the optimiser may drop when the
    /// buffer is freed right after). The project's one wipe of Swift bytes:
    /// `SecureRandom.wipe` is this.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { explicit_bzero(base, raw.count) }
        }
    }

    /// Creates `path` with `mode` holding `bytes`, all at once: fails with
    /// EEXIST if it exists, and no reader ever sees it short. The bytes go
    /// to a private temporary file beside it, are synced, and are then
    /// linked in under the name (link, unlike rename, never replaces a file
    /// another process made first); the folder is synced last.
    public static func create(_ path: String, bytes: [UInt8], mode: mode_t) throws(SystemError) {
        let temporary = path + ".tmp-" + randomSuffix()
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

    /// Sixteen random hex digits. Not `String(_:radix:)`: generic over the
    /// integer, its first call fills the runtime's cache of `UInt64`'s
    /// conformance, a page of libswiftCore's data kept in every host.
    static func randomSuffix() -> String {
        withUnsafeBytes(of: UInt64.random(in: 0...UInt64.max)) { Hex.encode(Array($0)) }
    }

    /// Makes a link or an unlink in the folder of `path` durable (best effort).
    public static func syncFolder(of path: String) {
        let folder = path.folderPart ?? "."
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
