import CJansson
import FlowHostPOSIX
import FlowHostVocabulary
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where finished frames go. The production sink is a file descriptor; tests
/// collect frames in memory.
public protocol FrameSink: AnyObject {
    /// Writes all of `bytes` or throws.
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Writes to a descriptor, retrying short writes and EINTR.
public final class FileDescriptorSink: FrameSink {
    public let fd: Int32
    public init(fd: Int32) { self.fd = fd }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw SystemError(operation: "write", errno: errno)
            }
            offset += written
        }
    }
}

/// Collects frames in memory (tests, golden transcripts).
public final class MemorySink: FrameSink {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ bytes: UnsafeRawBufferPointer) throws { self.bytes.append(contentsOf: bytes) }
    /// The lines written so far, without their `\n`.
    public var lines: [String] {
        String(utf8: bytes).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
    public func reset() { bytes.removeAll() }
}

/// Serialises JSON-RPC frames into one buffer and hands it to the sink on
/// `flush()`. The host flushes once it has handled every frame it has read,
/// so a pipelined burst costs one `write` and a lone request is answered at once.
///
/// Owned by the event loop; not thread-safe.
public final class FrameWriter {
    private let sink: FrameSink
    /// Unchecked exclusivity: touched only by this writer's own methods on the
    /// loop thread, never through overlapping accesses, and on every frame's path.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    private let flushThreshold: Int

    public init(sink: FrameSink, flushThreshold: Int = 64 * 1024) {
        self.sink = sink
        self.flushThreshold = flushThreshold
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    public var hasPendingBytes: Bool { !buffer.isEmpty }

    public func flush() throws {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBytes { try sink.write($0) }
    }

    private func append(_ literal: StaticString) {
        buffer.append(contentsOf: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private func endFrame() throws {
        buffer.append(0x0A)
        if buffer.count >= flushThreshold { try flush() }
    }

    // MARK: Frames

    /// `{"jsonrpc":"2.0","id":…,"result":…}`; a nil result is JSON null.
    public func writeResult(id: JSON, result: JSON?) throws {
        appendResult(id: id, result: result)
        try endFrame()
    }

    public func writeError(id: JSON, error: FlowHostError) throws {
        appendError(id: id, error: error)
        try endFrame()
    }

    /// An event: `{"jsonrpc":"2.0","method":…,"params":…}`.
    public func writeNotification(method: String, params: JSON) throws {
        append(#"{"jsonrpc":"2.0","method":"#)
        JSON.string(method).serialize(into: &buffer)
        append(#","params":"#)
        params.serialize(into: &buffer)
        buffer.append(UInt8(ascii: "}"))
        try endFrame()
    }

    /// A request from the host to the client.
    public func writeRequest(id: JSON, method: String, params: JSON) throws {
        append(#"{"jsonrpc":"2.0","id":"#)
        id.serialize(into: &buffer)
        append(#","method":"#)
        JSON.string(method).serialize(into: &buffer)
        append(#","params":"#)
        params.serialize(into: &buffer)
        buffer.append(UInt8(ascii: "}"))
        try endFrame()
    }

    /// A batch reply: the replies as one array on one line.
    public func writeBatch(_ replies: [Reply]) throws {
        buffer.append(UInt8(ascii: "["))
        for (index, reply) in replies.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            switch reply {
            case .result(let id, let result): appendResult(id: id, result: result)
            case .error(let id, let error): appendError(id: id, error: error)
            }
        }
        buffer.append(UInt8(ascii: "]"))
        try endFrame()
    }

    public func write(_ reply: Reply) throws {
        switch reply {
        case .result(let id, let result): try writeResult(id: id, result: result)
        case .error(let id, let error): try writeError(id: id, error: error)
        }
    }

    private func appendResult(id: JSON, result: JSON?) {
        append(#"{"jsonrpc":"2.0","id":"#)
        appendID(id)
        append(#","result":"#)
        if let result {
            if result.isEmptyObject { append("{}") } else { result.serialize(into: &buffer) }
        } else {
            append("null")
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Integer ids (the common case) are written without going through the
    /// serializer's printf; anything else is serialized by jansson.
    private func appendID(_ id: JSON) {
        guard let value = id.intValue else {
            id.serialize(into: &buffer)
            return
        }
        if value == 0 {
            buffer.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { scratch in
            while magnitude > 0 {
                scratch[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            if value < 0 { buffer.append(UInt8(ascii: "-")) }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[(24 - count)...]))
        }
    }

    private func appendError(id: JSON, error: FlowHostError) {
        append(#"{"jsonrpc":"2.0","id":"#)
        appendID(id)
        append(#","error":"#)
        error.json().serialize(into: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }
}

/// The answer to one request.
public enum Reply {
    case result(id: JSON, result: JSON?)
    case error(id: JSON, error: FlowHostError)
}
