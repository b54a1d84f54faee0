#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How long a browser's connection may take, and how many are held at once.
///
/// Anyone who can reach 127.0.0.1 can open connections, token or not: each
/// holds a descriptor, so without these a few hundred half-sent requests
/// would use up the process's descriptors (docs/inspector.md, "Connections and stderr").
struct ConnectionLimits: Sendable {
    /// From the accept to the end of the request's head (its blank line).
    var headSeconds: Double = 10
    /// An admitted connection that is not a WebSocket, with no bytes either
    /// way (a page's kept-alive connection between requests). A WebSocket is
    /// a device panel, quiet for as long as the operator is.
    var idleSeconds: Double = 60
    /// Connections held at once, waiting for their head or admitted.
    var capacity: Int

    /// Descriptors kept for what is not a browser's connection: stdio, the
    /// event queues, the hosts' pipes, Foundation's own.
    static let reservedDescriptors = 64
    /// Counted for each connection: a waiting one holds one descriptor, an
    /// admitted one three (the browser's socket and both ends of the relay
    /// to FlyingFox), a device panel more with its host's pipes; panels are
    /// few, and the waiting ones a peer without the token can open are held
    /// well under the limit.
    static let descriptorsPerConnection = 4

    /// The capacity from the descriptor limit; the timeouts from
    /// FLOWHOST_INSPECTOR_HEAD_SECONDS and FLOWHOST_INSPECTOR_IDLE_SECONDS
    /// if set (the tests shorten them).
    static func current(environment: [String: String]) -> ConnectionLimits {
        var limit = rlimit()
        let descriptors = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1024
        var limits = ConnectionLimits(capacity: capacity(descriptors: descriptors))
        if let seconds = environment["FLOWHOST_INSPECTOR_HEAD_SECONDS"].flatMap(Double.init), seconds > 0 { limits.headSeconds = seconds }
        if let seconds = environment["FLOWHOST_INSPECTOR_IDLE_SECONDS"].flatMap(Double.init), seconds > 0 { limits.idleSeconds = seconds }
        return limits
    }

    static func capacity(descriptors: Int) -> Int {
        min(256, max(4, (descriptors - reservedDescriptors) / descriptorsPerConnection))
    }
}
