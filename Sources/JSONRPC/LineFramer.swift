/// Splits a byte stream into `\n`-terminated frames.
///
/// Complete lines are handed out as views into the caller's chunk, so the
/// common case copies nothing; only a line split across chunks is carried
/// over in `pending`. A line longer than `maxFrameBytes` is never stored: the
/// framer drops its bytes up to the next `\n` and reports it once as
/// `.oversized`, so memory stays bounded by the limit whatever comes in.
public struct LineFramer {
    public enum Frame {
        /// One line without its `\n` (and without one `\r` before it).
        /// Valid only during the callback.
        case line(UnsafeRawBufferPointer)
        /// A line of `byteCount` bytes that exceeded the limit and was dropped.
        case oversized(byteCount: Int)
    }

    public let maxFrameBytes: Int
    private var pending: [UInt8] = []
    private var discardedBytes: Int? = nil

    public init(maxFrameBytes: Int) {
        precondition(maxFrameBytes > 0)
        self.maxFrameBytes = maxFrameBytes
    }

    /// Bytes of an incomplete line held over (never more than the limit + 1).
    public var bufferedByteCount: Int { pending.count }

    public mutating func push(_ chunk: UnsafeRawBufferPointer, _ emit: (Frame) throws -> Void) rethrows {
        guard let base = chunk.baseAddress else { return }
        var start = 0
        let end = chunk.count
        while start < end {
            guard let newline = memchr(base + start, 0x0A, end - start) else {
                try hold(UnsafeRawBufferPointer(start: base + start, count: end - start), emit)
                return
            }
            let lineEnd = base.distance(to: UnsafeRawPointer(newline))
            let piece = UnsafeRawBufferPointer(start: base + start, count: lineEnd - start)
            start = lineEnd + 1
            if let dropped = discardedBytes {
                discardedBytes = nil
                try emit(.oversized(byteCount: dropped + piece.count))
            } else if pending.isEmpty {
                try emitLine(piece, emit)
            } else {
                if pending.count + piece.count > maxFrameBytes + 1 {
                    let dropped = pending.count + piece.count
                    pending.removeAll(keepingCapacity: false)
                    try emit(.oversized(byteCount: dropped))
                    continue
                }
                pending.append(contentsOf: piece)
                try pending.withUnsafeBytes { try emitLine($0, emit) }
                pending.removeAll(keepingCapacity: pending.capacity <= 64 * 1024)
            }
        }
    }

    /// End of input: a last line without `\n` still counts as a frame.
    public mutating func finish(_ emit: (Frame) throws -> Void) rethrows {
        if let dropped = discardedBytes {
            discardedBytes = nil
            try emit(.oversized(byteCount: dropped))
        } else if !pending.isEmpty {
            try pending.withUnsafeBytes { try emitLine($0, emit) }
            pending.removeAll()
        }
    }

    /// Keeps the start of an unfinished line, or starts dropping it when it
    /// can no longer fit. `+ 1` leaves room for a `\r` that is not counted.
    private mutating func hold(_ bytes: UnsafeRawBufferPointer, _ emit: (Frame) throws -> Void) rethrows {
        if let dropped = discardedBytes {
            discardedBytes = dropped + bytes.count
        } else if pending.count + bytes.count > maxFrameBytes + 1 {
            discardedBytes = pending.count + bytes.count
            pending.removeAll(keepingCapacity: false)
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    private func emitLine(_ line: UnsafeRawBufferPointer, _ emit: (Frame) throws -> Void) rethrows {
        var count = line.count
        if count > 0, line[count - 1] == 0x0D { count -= 1 }
        if count == 0 { return }  // blank lines are ignored, as between frames
        if count > maxFrameBytes {
            try emit(.oversized(byteCount: count))
            return
        }
        try emit(.line(UnsafeRawBufferPointer(start: line.baseAddress, count: count)))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
