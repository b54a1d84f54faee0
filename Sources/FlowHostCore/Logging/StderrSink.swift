import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where log lines go: a file descriptor (stderr), never waited on.
///
/// Shared by every logger of the process, on any thread (the loop, the
/// delivery worker): its counters live behind a lock.
public final class StderrSink: Sendable {
    public let fd: Int32
    let burst: Int
    let windowSeconds: Int64

    struct Site {
        var windowStart: Int64
        var written: Int
        var suppressed: Int
    }

    struct State {
        var dropped = 0
        var sites: [String: Site] = [:]
    }

    private let state = Locked(State())

    public init(fd: Int32 = 2, burst: Int = 20, windowSeconds: Int64 = 10) {
        self.fd = fd
        self.burst = burst
        self.windowSeconds = windowSeconds
    }

    /// Lines dropped so far because the descriptor was full.
    public var droppedLines: Int { state.withLock { $0.dropped } }

    func write(_ text: String, site: String) {
        let now = Int64(time(nil))
        state.withLock { state in
            var entry = state.sites[site] ?? Site(windowStart: now, written: 0, suppressed: 0)
            if now - entry.windowStart >= windowSeconds {
                if entry.suppressed > 0 {
                    emit(&state, "notice flowhost: \(entry.suppressed) more lines from \(site) were suppressed")
                }
                entry = Site(windowStart: now, written: 0, suppressed: 0)
            }
            if entry.written >= burst {
                entry.suppressed += 1
            } else {
                entry.written += 1
                emit(&state, text)
            }
            // Keep the table small: sites are source locations, so few, but
            // a cap guards against a flow that logs from generated code.
            if state.sites.count > 4096 { state.sites.removeAll() }
            state.sites[site] = entry
        }
    }

    private func emit(_ state: inout State, _ text: String) {
        var line = ISOTime.string(Int64(time(nil))) + " " + LogLine.escaped(text)
        if state.dropped > 0 {
            line = ISOTime.string(Int64(time(nil))) + " warning flowhost: \(state.dropped) log lines were dropped (stderr was full)\n" + line
        }
        var bytes = LogLine.clipped(Array(line.utf8))
        bytes.append(UInt8(ascii: "\n"))
        var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&ready, 1, 0) == 1, ready.revents & Int16(POLLOUT) != 0 else {
            state.dropped += 1
            return
        }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if written == bytes.count { state.dropped = 0 } else { state.dropped += 1 }
    }
}

/// How a log line is made safe to write.
public enum LogLine {
    /// A pipe takes a write of up to PIPE_BUF (4096) bytes whole or not at all.
    public static let maxBytes = 4000

    /// Control characters (C0, DEL, C1, and the line and paragraph
    /// separators) become visible escapes, so a value cannot start a line.
    public static func escaped(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}":
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// At most `maxBytes`, cut on a UTF-8 boundary, marked when cut.
    static func clipped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count > maxBytes else { return bytes }
        var end = maxBytes - 3
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(bytes[..<end]) + Array("…".utf8)
    }

    /// A value from a client, shortened for a log line.
    public static func clip(_ text: String, to limit: Int = 64) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > limit else { return text }
        return String(String.UnicodeScalarView(scalars.prefix(limit))) + "…(\(scalars.count) characters)"
    }
}

/// RFC 3339 / ISO 8601 in UTC, e.g. 2026-11-22T08:01:51Z: the one spelling
/// of a time in logs and in the operator's tools.
public enum ISOTime {
    public static func string(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var text = [CChar](repeating: 0, count: 32)
        let count = strftime(&text, text.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(utf8: text[0..<count].map { UInt8(bitPattern: $0) })
    }
}
