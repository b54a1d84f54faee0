import FlowHostPOSIX

#if canImport(Glibc)
import CEpoll
import Glibc
#endif

/// The system calls of the feed relay, each turning a failure into a
/// `SystemError`.
enum RelayCall {
    @discardableResult
    static func check(_ operation: String, _ result: Int32) throws(SystemError) -> Int32 {
        guard result >= 0 else { throw SystemError(operation: operation, errno: errno) }
        return result
    }

    /// A Unix-domain socket address for `path`; nil when the path is too
    /// long for one (sun_path holds 107 bytes and a NUL).
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        return address
    }

    static func withAddress<T>(_ address: sockaddr_un, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var copy = address
        return withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// The uid of the process at the other end of a Unix-domain socket.
    static func peerUID(_ fd: Int32) throws(SystemError) -> uid_t {
        #if os(Linux)
        var uid = uid_t(0)
        var gid = gid_t(0)
        try check("getsockopt SO_PEERCRED", fh_peer_ids(fd, &uid, &gid))
        return uid
        #else
        var uid = uid_t(0)
        var gid = gid_t(0)
        try check("getpeereid", getpeereid(fd, &uid, &gid))
        return uid
        #endif
    }

    static func newSocket() throws(SystemError) -> Int32 {
        try check("socket AF_UNIX", socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
    }
}

/// One end of a relay connection between two hosts of this machine: a
/// non-blocking Unix-domain stream socket, the frames read from it, and
/// the bytes waiting to be written (bounded: a peer that stops reading is
/// dropped, never waited on). Owns its descriptor.
final class RelaySocket {
    let fd: Int32
    private var reader: FeedRelayFrameReader
    private var pending: [UInt8] = []
    private var pendingStart = 0
    /// Bytes queued beyond this close the connection.
    let pendingLimit: Int
    private(set) var isClosed = false

    init(fd: Int32, readLimit: Int, pendingLimit: Int) {
        self.fd = fd
        reader = FeedRelayFrameReader(limit: readLimit)
        self.pendingLimit = pendingLimit
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    var hasPending: Bool { pending.count > pendingStart }
    var pendingCount: Int { pending.count - pendingStart }

    /// Connects to the holder's socket at `address`; throws when no one listens there.
    static func connect(to address: sockaddr_un, readLimit: Int, pendingLimit: Int) throws(SystemError) -> RelaySocket {
        let fd = try RelayCall.newSocket()
        let result = RelayCall.withAddress(address) { Glibc.connect(fd, $0, $1) }
        // A Unix-domain connect either succeeds or fails at once; EAGAIN
        // (the holder's backlog is full) counts as a failure to retry.
        guard result == 0 else {
            let error = SystemError(operation: "connect", errno: errno)
            Glibc.close(fd)
            throw error
        }
        return RelaySocket(fd: fd, readLimit: readLimit, pendingLimit: pendingLimit)
    }

    /// Reads what is there; returns the whole frames. Throws on end of
    /// stream, an error or garbage (the caller closes).
    func receive() throws -> [FeedRelayFrame] {
        // Every host on the machine runs this for every event: the bytes are
        // read into stack memory, neither allocated nor zeroed per call (a
        // larger frame takes more reads, into the reader's own buffer).
        try withUnsafeTemporaryAllocation(byteCount: Self.receiveChunk, alignment: 8) { chunk in
            var frames: [FeedRelayFrame] = []
            while true {
                let count = Glibc.read(fd, chunk.baseAddress, chunk.count)
                if count > 0 {
                    reader.push(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                    while let frame = try reader.next() { frames.append(frame) }
                    // A short read took what there was: whatever comes after
                    // it keeps the socket readable (level-triggered), so a
                    // read that would only say EAGAIN is not made.
                    if count < chunk.count { return frames }
                    continue
                }
                if count == 0 { throw SystemError(operation: "read (the other end closed)", errno: 0) }
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return frames }
                throw SystemError(operation: "read", errno: errno)
            }
        }
    }

    static let receiveChunk = 16_384

    /// Queues `bytes` and writes what the socket takes now. False: the
    /// queue is over its bound or the write failed (the caller closes).
    func send(_ bytes: [UInt8]) -> Bool {
        if pendingStart > 0, pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        }
        guard pending.count - pendingStart + bytes.count <= pendingLimit else { return false }
        pending.append(contentsOf: bytes)
        return flush()
    }

    /// Writes queued bytes until the socket would block. False on an error.
    func flush() -> Bool {
        while pendingStart < pending.count {
            let written = pending.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + pendingStart, raw.count - pendingStart, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                pendingStart += written
                continue
            }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
            return false
        }
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        } else if pendingStart > 1_048_576 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        return true
    }
}
