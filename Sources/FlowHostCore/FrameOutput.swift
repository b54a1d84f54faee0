import FlowJSON
import JSONRPC
import Logging

/// The engine's side of the client's stream. A reply is written at once;
/// an event or host request caused while a reply is being prepared waits
/// until that reply is written (`holding`), so a client always reads the
/// answer to its call before what the call set off.
///
/// Loop thread only: the engine that owns it is confined there.
final class FrameOutput {
    /// A frame that may have to wait for a reply.
    enum Outgoing {
        case event(name: String, params: JSON)
        case request(id: JSON, method: String, params: JSON)
    }

    private let writer: FrameWriter
    private let logger: Logger
    /// Unchecked: confined to the loop thread (above), and touched on every
    /// frame; the dynamic check would cost more than the frame's routing.
    @exclusivity(unchecked) private var holdDepth = 0
    @exclusivity(unchecked) private var held: [Outgoing] = []
    private var isReleasing = false
    /// Set when a write failed: the client is gone.
    private(set) var isClosed = false

    init(sink: FrameSink, logger: Logger) {
        writer = FrameWriter(sink: sink)
        self.logger = logger
    }

    /// Runs `body` with events and host requests held, then sends them.
    func holding<T>(_ body: () -> T) -> T {
        holdDepth += 1
        let result = body()
        holdDepth -= 1
        if holdDepth == 0 { releaseHeld() }
        return result
    }

    func write(_ reply: Reply) {
        writeOrClose { try writer.write(reply) }
    }

    func writeBatch(_ replies: [Reply]) {
        writeOrClose { try writer.writeBatch(replies) }
    }

    /// An event or host request: now, or after the reply being prepared.
    func send(_ outgoing: Outgoing) {
        if holdDepth > 0 {
            held.append(outgoing)
            return
        }
        writeOrClose {
            switch outgoing {
            case .event(let name, let params): try writer.writeNotification(method: name, params: params)
            case .request(let id, let method, let params): try writer.writeRequest(id: id, method: method, params: params)
            }
        }
    }

    func flush() throws { try writer.flush() }

    func flushOrClose() { writeOrClose { try writer.flush() } }

    private func releaseHeld() {
        // A release inside a release (a frame's write that held output
        // again) leaves what it holds to the outer one, which sends it after
        // the batch in hand: once each, in order.
        guard !isReleasing else { return }
        isReleasing = true
        defer { isReleasing = false }
        // By index, so that what is held meanwhile is sent after, and the
        // array keeps its storage: a host holds its output around every
        // event it is woken for.
        var index = 0
        while index < held.count {
            let outgoing = held[index]
            index += 1
            send(outgoing)
        }
        held.removeAll(keepingCapacity: true)
    }

    /// A failed write means the client is gone: the engine stops quietly.
    private func writeOrClose(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            logger.info("client output closed: \(error)")
            isClosed = true
        }
    }
}
