#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that hold secrets or their hashes (the store, its WAL and shared
/// memory, the outbox key, device keys) must be the running user's alone.
/// One created beforehand with a looser mode is refused, never used as it is.
public enum PrivateFile {
    /// Why `path` is not private, or nil when it is (or does not exist).
    public static func problem(at path: String, uid: uid_t = getuid()) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return problem(at: path, info, uid: uid)
    }

    /// Why the file `info` describes (found at `path`) is not private, or nil.
    public static func problem(at path: String, _ info: stat, uid: uid_t) -> String? {
        if info.st_mode & S_IFMT != S_IFREG {
            return "\(path) is not a regular file; remove it or point the store elsewhere"
        }
        if info.st_uid != uid {
            return "\(path) is owned by uid \(info.st_uid), not the running user (uid \(uid)); chown it or run as its owner"
        }
        if info.st_mode & 0o077 != 0 {
            return "\(path) can be read or written by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run: chmod 600 \(path)"
        }
        return nil
    }

    /// Why the folder at `path` is not private (others can list or change
    /// it, or another user owns it), or nil when it is (or does not exist).
    public static func folderProblem(at path: String, uid: uid_t = getuid()) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT != S_IFDIR { return "\(path) is not a folder" }
        if info.st_uid != uid { return "\(path) is owned by uid \(info.st_uid), not the running user (uid \(uid))" }
        if info.st_mode & 0o077 != 0 {
            return "\(path) can be reached by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run: chmod 700 \(path)"
        }
        return nil
    }

    /// Throws the first problem among `paths`.
    public static func check(_ paths: [String]) throws(StoreError) {
        for path in paths {
            if let problem = problem(at: path) { throw StoreError("refusing a file others can reach: \(problem)") }
        }
    }

    /// `mkdir -p` with mode 0700 for the folders it creates.
    public static func makeFolders(_ folder: String) throws {
        var current = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            // `String(part)`: appending a Substring goes through a generic
            // that fills a runtime cache of Substring's conformance (a page
            // of libswiftCore's data in every host; docs/performance.md, "The start path").
            current += "/" + String(part)
            if mkdir(current, 0o700) != 0, errno != EEXIST {
                throw StoreError("cannot create \(current): \(String(cString: strerror(errno)))")
            }
        }
    }
}
