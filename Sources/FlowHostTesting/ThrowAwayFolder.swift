#if canImport(Glibc)
import Glibc
#endif

/// A private folder under TMPDIR (else /tmp) for one test host's store.
enum ThrowAwayFolder {
    static func make() throws -> String {
        let base = String(cString: getenv("TMPDIR") ?? strdup("/tmp"))
        var template = Array((base + "/flowhost-test-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TestHostError("cannot make a throw-away folder in \(base): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    /// Removes the folder and what the host left in it (files and the
    /// `devices` folder of keys: no deeper nesting is ever made).
    static func remove(_ folder: String) {
        removeContents(of: folder)
        rmdir(folder)
    }

    private static func removeContents(of folder: String) {
        guard let stream = opendir(folder) else { return }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if name != ".", name != ".." { names.append(name) }
        }
        closedir(stream)
        for name in names {
            let path = folder + "/" + name
            if unlink(path) != 0 {
                removeContents(of: path)
                rmdir(path)
            }
        }
    }
}
