import CBenchSupport
import Foundation

/// A spawned server (flowhost or the C reference) and the client end of its pipes.
final class Server {
    let pid: pid_t
    let input: Int32
    let output: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0

    init(_ argv: [String], cpu: Int32 = -1) throws {
        var toChild: Int32 = -1
        var fromChild: Int32 = -1
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        pid = bench_spawn(&cArguments, cpu, &toChild, &fromChild, 1)
        guard pid > 0 else { throw BenchError("cannot start \(argv[0])") }
        input = toChild
        output = fromChild
    }

    func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(input, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { if errno == EINTR { continue }; return }
                offset += written
            }
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// The next line (without its newline).
    func readLine() throws -> [UInt8] {
        while true {
            if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line
            }
            try fill()
        }
    }

    /// Reads until `count` lines have arrived; returns nothing (throughput).
    func skipLines(_ count: Int) throws {
        var remaining = count
        while remaining > 0 {
            if start == end { try fill() }
            buffer.withUnsafeBytes { raw in
                var index = start
                while index < end, remaining > 0 {
                    guard let found = memchr(raw.baseAddress! + index, 0x0A, end - index) else { index = end; break }
                    index = raw.baseAddress!.distance(to: UnsafeRawPointer(found)) + 1
                    remaining -= 1
                }
                start = index
            }
        }
    }

    /// Reads lines until one contains `marker`; returns it.
    func readUntil(_ marker: String) throws -> String {
        while true {
            let line = String(decoding: try readLine(), as: UTF8.self)
            if line.contains(marker) { return line }
        }
    }

    private func fill() throws {
        if start == end {
            start = 0
            end = 0
        } else if end == buffer.count {
            buffer.removeSubrange(0..<start)
            end -= start
            start = 0
            buffer += [UInt8](repeating: 0, count: buffer.count)
        }
        let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress! + end, $0.count - end) }
        guard count > 0 else { throw BenchError("server closed its output") }
        end += count
    }

    /// VmRSS and VmHWM (peak) in KiB, from /proc.
    func memory() -> (rss: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Int {
            for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
                return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
            }
            return 0
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Proportional set size in KiB (/proc/PID/smaps_rollup): private pages
    /// whole, each shared page divided by the processes that map it.
    func proportionalSetKiB() -> Int {
        guard let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return 0 }
        for line in rollup.split(separator: "\n") where line.hasPrefix("Pss:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    /// CPU time (user + system) the process has used so far, in milliseconds.
    func cpuMilliseconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Fields after the name: state is [0]; utime and stime are the 14th and 15th of the whole line.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Nanoseconds each living thread has run (`/proc/PID/task/TID/schedstat`,
    /// by thread id): exact, where `/proc/PID/stat` counts in clock ticks.
    func threadRunNanoseconds() -> [String: UInt64] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var times: [String: UInt64] = [:]
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                let first = text.split(separator: " ").first, let value = UInt64(first)
            else { continue }
            times[task] = value
        }
        return times
    }

    /// CPU the process used between two `threadRunNanoseconds()` readings, in
    /// µs; nil when a thread ended in between (its time would go missing).
    static func cpuMicroseconds(from before: [String: UInt64], to after: [String: UInt64]) -> Double? {
        guard before.keys.allSatisfy({ after[$0] != nil }) else { return nil }
        return Double(after.reduce(UInt64(0)) { $0 + ($1.value - (before[$1.key] ?? 0)) }) / 1000
    }

    /// Context switches of every thread so far: each is a wake-up after a sleep or a preemption.
    func contextSwitches() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var total = 0
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                total += Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "0") ?? 0
            }
        }
        return total
    }

    func stop() {
        close(input)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(output)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func now() -> UInt64 { bench_now_ns() }
