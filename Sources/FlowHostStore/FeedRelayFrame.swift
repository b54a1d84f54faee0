import FlowHostPOSIX

/// The frames the hosts of one machine exchange over the feed relay's
/// socket (Protocol/spec.md, "One listener per machine"). Each frame is a
/// 4-byte big-endian length, then that many bytes: a kind byte and its body.
/// Integers are big-endian; strings are a length then UTF-8 bytes.
///
/// - follow (a host to the holder): generation u64, cursor i64, count u16,
///   then each topic (u16 length, bytes). No topic: the host follows nothing.
/// - events (the holder to a host): generation u64 (the follow it answers),
///   count u32, then each event: sequence i64, at i64, topic (u16 length),
///   payload (u32 length).
///
/// Every length is bounded before anything is allocated: a frame over its
/// bound, a short body, trailing bytes or an unknown kind is garbage, and
/// the connection that sent it is closed.
public enum FeedRelayFrame: Equatable, Sendable {
    case follow(generation: UInt64, cursor: Int64, topics: [String])
    case events(generation: UInt64, [StoredFeedEvent])

    /// The largest frame a host may send (a follow).
    public static let maxFollowBytes = 65_536
    /// The largest frame the holder sends; an event larger than this alone
    /// is not relayed (`fits`).
    public static let maxEventsBytes = 1_048_576
    static let followKind: UInt8 = 1
    static let eventsKind: UInt8 = 2

    /// Whether `event` fits in an events frame of its own.
    static func fits(_ event: StoredFeedEvent) -> Bool {
        4 + 1 + 8 + 4 + encodedSize(event) <= maxEventsBytes
    }

    static func encodedSize(_ event: StoredFeedEvent) -> Int { 8 + 8 + 2 + event.topic.utf8.count + 4 + event.payload.utf8.count }

    /// The frame's bytes, length prefix included.
    public func encoded() -> [UInt8] {
        var body: [UInt8] = []
        switch self {
        case let .follow(generation, cursor, topics):
            body.append(Self.followKind)
            body.appendInteger(generation)
            body.appendInteger(UInt64(bitPattern: cursor))
            body.appendInteger(UInt16(topics.count))
            for topic in topics { body.appendString(topic, lengthBytes: 2) }
        case let .events(generation, events):
            body.append(Self.eventsKind)
            body.appendInteger(generation)
            body.appendInteger(UInt32(events.count))
            for event in events {
                body.appendInteger(UInt64(bitPattern: event.sequence))
                body.appendInteger(UInt64(bitPattern: event.at))
                body.appendString(event.topic, lengthBytes: 2)
                body.appendString(event.payload, lengthBytes: 4)
            }
        }
        var frame: [UInt8] = []
        frame.reserveCapacity(4 + body.count)
        frame.appendInteger(UInt32(body.count))
        return frame + body
    }

    /// Events frames of at most `maxEventsBytes` each, in order; events too
    /// large to relay are left out (the caller logs them).
    static func eventFrames(generation: UInt64, _ events: [StoredFeedEvent]) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        var batch: [StoredFeedEvent] = []
        var size = 4 + 1 + 8 + 4
        for event in events where fits(event) {
            let added = encodedSize(event)
            if size + added > maxEventsBytes {
                frames.append(FeedRelayFrame.events(generation: generation, batch).encoded())
                batch = []
                size = 4 + 1 + 8 + 4
            }
            batch.append(event)
            size += added
        }
        if !batch.isEmpty { frames.append(FeedRelayFrame.events(generation: generation, batch).encoded()) }
        return frames
    }
}

/// Cuts a byte stream into frames, refusing any over `limit`.
public struct FeedRelayFrameReader {
    public struct Garbage: Error, CustomStringConvertible {
        public let description: String
    }

    private var buffer: [UInt8] = []
    private var start = 0
    public let limit: Int

    public init(limit: Int) { self.limit = limit }

    public mutating func push(_ bytes: UnsafeRawBufferPointer) { buffer.append(contentsOf: bytes) }
    public mutating func push(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    /// The next whole frame, nil when more bytes are needed.
    public mutating func next() throws(Garbage) -> FeedRelayFrame? {
        guard buffer.count - start >= 4 else { return nil }
        let length = buffer[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
        guard length >= 1, length <= limit else { throw Garbage(description: "a frame of \(length) bytes (the bound is \(limit))") }
        guard buffer.count - start - 4 >= length else { return nil }
        let body = buffer[(start + 4)..<(start + 4 + length)]
        start += 4 + length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536 {
            buffer.removeFirst(start)
            start = 0
        }
        return try Self.decode(body)
    }

    static func decode(_ body: ArraySlice<UInt8>) throws(Garbage) -> FeedRelayFrame {
        var reader = ByteReader(bytes: body)
        let kind = try reader.integer(UInt8.self)
        let frame: FeedRelayFrame
        switch kind {
        case FeedRelayFrame.followKind:
            let generation = try reader.integer(UInt64.self)
            let cursor = Int64(bitPattern: try reader.integer(UInt64.self))
            let count = Int(try reader.integer(UInt16.self))
            var topics: [String] = []
            for _ in 0..<count { topics.append(try reader.string(lengthBytes: 2)) }
            frame = .follow(generation: generation, cursor: cursor, topics: topics)
        case FeedRelayFrame.eventsKind:
            let generation = try reader.integer(UInt64.self)
            let count = Int(try reader.integer(UInt32.self))
            // Each event takes at least 22 bytes: a count beyond what the body can hold is garbage.
            guard count <= reader.remaining / 22 else { throw Garbage(description: "\(count) events in \(body.count) bytes") }
            var events: [StoredFeedEvent] = []
            events.reserveCapacity(count)
            for _ in 0..<count {
                let sequence = Int64(bitPattern: try reader.integer(UInt64.self))
                let at = Int64(bitPattern: try reader.integer(UInt64.self))
                let topic = try reader.string(lengthBytes: 2)
                let payload = try reader.string(lengthBytes: 4)
                events.append(StoredFeedEvent(sequence: sequence, topic: topic, payload: payload, at: at))
            }
            frame = .events(generation: generation, events)
        default:
            throw Garbage(description: "a frame of unknown kind \(kind)")
        }
        guard reader.remaining == 0 else { throw Garbage(description: "\(reader.remaining) bytes after a frame's body") }
        return frame
    }
}

/// Reads big-endian integers and length-prefixed strings from a frame body.
private struct ByteReader {
    let bytes: ArraySlice<UInt8>
    var index: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - index }

    mutating func integer<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) throws(FeedRelayFrameReader.Garbage) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw FeedRelayFrameReader.Garbage(description: "a frame cut short") }
        var value: T = 0
        for byte in bytes[index..<index + size] { value = value << 8 | T(byte) }
        index += size
        return value
    }

    mutating func string(lengthBytes: Int) throws(FeedRelayFrameReader.Garbage) -> String {
        let length = lengthBytes == 2 ? Int(try integer(UInt16.self)) : Int(try integer(UInt32.self))
        guard remaining >= length else { throw FeedRelayFrameReader.Garbage(description: "a string longer than its frame") }
        let text = bytes[index..<index + length]
        index += length
        guard let string = text.withUnsafeBufferPointer({ String(validUTF8: $0) }) else {
            throw FeedRelayFrameReader.Garbage(description: "a string that is not UTF-8")
        }
        return string
    }
}

extension [UInt8] {
    fileprivate mutating func appendInteger<T: FixedWidthInteger>(_ value: T) {
        var bigEndian = value.bigEndian
        Swift.withUnsafeBytes(of: &bigEndian) { append(contentsOf: $0) }
    }

    fileprivate mutating func appendString(_ string: String, lengthBytes: Int) {
        let utf8 = Array(string.utf8)
        if lengthBytes == 2 { appendInteger(UInt16(utf8.count)) } else { appendInteger(UInt32(utf8.count)) }
        append(contentsOf: utf8)
    }
}
