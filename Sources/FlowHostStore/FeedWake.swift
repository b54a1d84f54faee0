#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the hosts that share a store wake each other when its change feed
/// grows: a descriptor the host's loop waits on, a ring after a commit.
/// The feed table stays the record: a lost wake-up only delays delivery
/// until the host's periodic read.
public protocol FeedSignal: AnyObject {
    /// A descriptor that becomes readable when another writer rings; nil when
    /// there is none now (the host then relies on its periodic read).
    func listen() -> Int32?
    /// Tells every listener that the feed grew (after the commit).
    func ring()
    /// Reads away what made the descriptor readable.
    func drain()
    /// How many times the descriptor was opened: a new number means a new
    /// descriptor, even under a reused number.
    var opened: Int { get }
}

extension FeedSignal {
    public var opened: Int { 1 }
}

/// Wakes the hosts that share a store file when its change feed grows: a
/// one-byte file beside the store, rewritten by every publisher after its
/// commit and watched by every listening host with inotify. An idle host
/// costs nothing: it sleeps in poll until the file changes.
///
/// Used on one thread at a time (the host's loop, or an admin command).
public final class FeedWake: FeedSignal {
    public let path: String
    private var watch: Int32 = -1

    /// Creates the file (mode 0600) if needed; refuses one others can reach.
    public init(path: String) throws {
        self.path = path
        let fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError("cannot create \(path): \(String(cString: strerror(errno)))") }
        close(fd)
        try PrivateFile.check([path])
    }

    deinit { if watch >= 0 { close(watch) } }

    /// A descriptor that becomes readable when another writer rings; nil
    /// where inotify is missing (the host then relies on its poll).
    public func listen() -> Int32? {
        #if os(Linux)
        if watch >= 0 { return watch }
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        guard inotify_add_watch(fd, path, UInt32(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)) >= 0 else {
            close(fd)
            return nil
        }
        watch = fd
        return fd
        #else
        return nil
        #endif
    }

    /// Tells every listener that the feed grew.
    public func ring() {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        var byte: UInt8 = 1
        _ = pwrite(fd, &byte, 1, 0)
        close(fd)
    }

    /// Reads away what made the descriptor readable.
    public func drain() {
        guard watch >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(watch, $0.baseAddress, $0.count) }) > 0 {}
    }
}
