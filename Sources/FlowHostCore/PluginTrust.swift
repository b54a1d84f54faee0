import FlowHostPOSIX

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
///
/// One value judges one pass over the plugin folders: it remembers each
/// folder's verdict, so the libraries of one folder share one walk up to `/`
/// (each verdict is still made before any library is opened).
public struct PluginTrust {
    public let uid: uid_t
    /// Verdicts by real path: nil, safe; else why not.
    private var folderVerdicts: [String: String?] = [:]
    /// Real paths of the folders named so far.
    private var realFolders: [String: String] = [:]

    public init(uid: uid_t = getuid()) {
        self.uid = uid
    }

    /// The library at `path`, in the folder `folder`: its real path when it
    /// may be loaded, else why not.
    public mutating func check(library path: String, inFolder folder: String) -> Result<String, PluginRefusal> {
        func refused(_ reason: String) -> Result<String, PluginRefusal> { .failure(PluginRefusal(path: path, reason: reason)) }
        var link = stat()
        guard lstat(path, &link) == 0 else { return refused("cannot stat: \(String(cString: strerror(errno)))") }
        let target: String
        if link.st_mode & S_IFMT == S_IFLNK {
            guard let resolved = Self.realPath(path) else { return refused("broken symbolic link") }
            target = resolved
        } else if let real = realFolder(folder), let slash = path.lastPathSeparator {
            // Not a link itself: its real path is its folder's and its name.
            target = (real == "/" ? "" : real) + String(path[slash...])
        } else {
            target = Self.realPath(path) ?? path
        }
        var file = stat()
        guard stat(target, &file) == 0 else { return refused("cannot stat \(target): \(String(cString: strerror(errno)))") }
        let kind = file.st_mode & S_IFMT
        guard kind == S_IFREG else { return refused("\(target) is not a regular file (\(Self.kindName(kind)))") }
        if let problem = Self.ownershipProblem(file, target, uid: uid, isDirectory: false) { return refused(problem) }
        if let problem = verdict(onRealFolder: Self.parent(of: target)) { return refused(problem) }
        return .success(target)
    }

    /// The library `check` passed, opened (`descriptor`, from its real
    /// path `path`): why it may not be loaded after all, or nil. Judged on
    /// the descriptor, the file that is hashed and loaded, whatever the
    /// name points to by now.
    public func problem(withOpenLibrary descriptor: Int32, path: String) -> String? {
        var file = stat()
        guard fstat(descriptor, &file) == 0 else { return "cannot stat \(path): \(String(cString: strerror(errno)))" }
        let kind = file.st_mode & S_IFMT
        guard kind == S_IFREG else { return "\(path) is not a regular file (\(Self.kindName(kind)))" }
        return Self.ownershipProblem(file, path, uid: uid, isDirectory: false)
    }

    /// Why the folder `path` (and each folder above it) is not safe to load from, or nil.
    public mutating func problem(withFolder path: String) -> String? {
        guard let resolved = realFolder(path) else { return "cannot resolve \(path): \(String(cString: strerror(errno)))" }
        return verdict(onRealFolder: resolved)
    }

    private mutating func realFolder(_ path: String) -> String? {
        if let known = realFolders[path] { return known }
        let resolved = Self.realPath(path)
        if let resolved { realFolders[path] = resolved }
        return resolved
    }

    /// The folder's own verdict, then its parent's, up to `/`: the first problem from the bottom.
    private mutating func verdict(onRealFolder folder: String) -> String? {
        if let known = folderVerdicts[folder] { return known }
        var info = stat()
        let verdict: String?
        if stat(folder, &info) != 0 {
            verdict = "cannot stat \(folder): \(String(cString: strerror(errno)))"
        } else if let problem = Self.ownershipProblem(info, folder, uid: uid, isDirectory: true) {
            verdict = problem
        } else {
            verdict = folder == "/" ? nil : self.verdict(onRealFolder: Self.parent(of: folder))
        }
        folderVerdicts[folder] = .some(verdict)
        return verdict
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
        guard let folder = path.folderPart, !folder.isEmpty else { return "/" }
        return folder
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
