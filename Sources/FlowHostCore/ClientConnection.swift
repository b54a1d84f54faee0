import JSONRPC
import Logging

/// What a transport needs of whatever serves its client: frames in, the
/// deadlines and wake-ups to wait for, output flushed, and when to stop.
/// The engine is one; the transport knows it only through this.
///
/// Called on the one thread that runs the transport's loop.
public protocol ClientConnection: AnyObject {
    /// One whole frame from the client (or one that broke a limit).
    func handle(_ frame: LineFramer.Frame)
    /// The client closed its end.
    func inputEnded()
    /// Writes what is buffered; a client that is gone ends the connection.
    func flushOutput()
    /// Set when the connection should end: 0 for a clean end.
    var exitStatus: Int32? { get }
    /// The earliest moment `fireTimers` has something to do, on `clock`.
    var nextDeadline: UInt64? { get }
    func fireTimers(now: UInt64?)
    /// A descriptor whose readability means `woke` has work (the change feed).
    var wakeDescriptor: Int32? { get }
    func woke()
    /// The client's process: when it is gone, the connection ends.
    var clientProcessID: Int32? { get }
    var clock: any HostClock { get }
    var logger: Logger { get }
    var maxFrameBytes: Int { get }
}

/// Cuts a byte stream into frames for a connection: the transport owns it.
public struct FramedInput {
    private var framer: LineFramer
    private unowned let connection: any ClientConnection

    public init(connection: any ClientConnection) {
        self.connection = connection
        framer = LineFramer(maxFrameBytes: connection.maxFrameBytes)
    }

    /// Feeds bytes read from the client; complete frames are handled at once.
    public mutating func push(_ bytes: UnsafeRawBufferPointer) {
        let connection = self.connection
        framer.push(bytes) { frame in connection.handle(frame) }
    }

    /// The client closed its end: a last unterminated line still counts.
    public mutating func finish() {
        let connection = self.connection
        framer.finish { frame in connection.handle(frame) }
        connection.inputEnded()
    }
}

extension ClientConnection {
    /// Fires what is due now.
    public func fireTimers() { fireTimers(now: nil) }
}
