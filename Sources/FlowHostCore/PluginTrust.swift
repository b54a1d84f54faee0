#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a library may be loaded at all, decided before `dlopen` runs any
/// of its code, the way OpenSSH's StrictModes judges key files: a plugin
/// is code that runs with the host's rights, so only files that nobody
/// else could have written or replaced are taken.
///
/// A file is trusted when it is a regular file (after following symbolic
/// links), owned by root or the running user, not writable by group or
/// others, and every folder above it (up to `/`) is the same, except that a
/// root-owned sticky folder (such as `/tmp`) is a safe parent. The folder a
/// symbolic link sits in is judged too, since whoever can write it can
/// point the link elsewhere.
public enum PluginTrust {
    /// Why the library at `path` must not be loaded, or nil when it may.
    public static func problem(withLibrary path: String, uid: uid_t = getuid()) -> String? {
        var link = stat()
        guard lstat(path, &link) == 0 else { return "cannot stat: \(String(cString: strerror(errno)))" }
        var target = path
        if link.st_mode & S_IFMT == S_IFLNK {
            guard let resolved = realPath(path) else { return "broken symbolic link" }
            target = resolved
        }
        var file = stat()
        guard stat(target, &file) == 0 else { return "cannot stat \(target): \(String(cString: strerror(errno)))" }
        let kind = file.st_mode & S_IFMT
        guard kind == S_IFREG else { return "\(target) is not a regular file (\(kindName(kind)))" }
        if let problem = ownershipProblem(file, target, uid: uid, isDirectory: false) { return problem }
        return problem(withFolder: parent(of: target), uid: uid)
    }

    /// Why the folder `path` (and each folder above it) is not safe to load from, or nil.
    public static func problem(withFolder path: String, uid: uid_t = getuid()) -> String? {
        guard let resolved = realPath(path) else { return "cannot resolve \(path): \(String(cString: strerror(errno)))" }
        var current = resolved
        while true {
            var info = stat()
            guard stat(current, &info) == 0 else { return "cannot stat \(current): \(String(cString: strerror(errno)))" }
            if let problem = ownershipProblem(info, current, uid: uid, isDirectory: true) { return problem }
            if current == "/" { return nil }
            current = parent(of: current)
        }
    }

    private static func ownershipProblem(_ info: stat, _ path: String, uid: uid_t, isDirectory: Bool) -> String? {
        let what = isDirectory ? "folder" : "file"
        if info.st_uid != 0 && info.st_uid != uid {
            return "\(what) \(path) is owned by uid \(info.st_uid), neither root nor the running user"
        }
        let writableByOthers = info.st_mode & (S_IWGRP | S_IWOTH) != 0
        let safeSticky = isDirectory && info.st_uid == 0 && info.st_mode & S_ISVTX != 0
        if writableByOthers && !safeSticky {
            return "\(what) \(path) is writable by group or others (mode \(String(info.st_mode & 0o7777, radix: 8))); chmod go-w it"
        }
        return nil
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    private static func kindName(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "type \(String(kind, radix: 8))"
        }
    }
}
