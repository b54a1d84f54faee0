import FlowHostChildProcess
import Foundation

/// One `flowhost` child: its stdin takes frames, its stdout and stderr
/// come back line by line, and its end comes last, after every line.
///
/// `@unchecked Sendable`: `child` is set in `init` and never reassigned
/// (it is Sendable itself); `send` and `closeInput` are called from one
/// task (the bridge's reader of the page), and each reader thread reads
/// its own pipe into its own buffer.
final class HostProcess: @unchecked Sendable {
    enum Output: Sendable {
        case frame(String)
        case log(String)
        case ended(status: Int32, signalled: Bool)
    }

    private let child: ChildProcess
    /// Readers still reading; the last one to finish reports the end.
    private let readersLeft = Locked(2)

    let pid: Int32
    let command: [String]

    /// Starts the host; `receive` gets each line, then `.ended` once.
    init(executable: String, arguments: [String], receive: @escaping @Sendable (Output) -> Void) throws {
        command = [executable] + arguments
        // None of the inspector's other descriptors reach the host (the
        // listening socket and the browser's connections included;
        // test_inspector_access checks it). A session of its own: the
        // terminal's Ctrl-C stops the inspector, whose end closes the
        // host's stdin, and the host ends.
        child = try ChildProcess(
            command, descriptors: [STDIN_FILENO: .pipeToChild, STDOUT_FILENO: .pipeFromChild, STDERR_FILENO: .pipeFromChild],
            newSession: true)
        pid = child.pid
        let child = self.child, readersLeft = self.readersLeft
        let finished: @Sendable () -> Void = {
            guard readersLeft.withLock({ $0 -= 1; return $0 }) == 0 else { return }
            let end = child.wait()
            receive(.ended(status: end.signal ?? end.code, signalled: end.signalled))
        }
        Self.readLines(of: child, from: STDOUT_FILENO, finished: finished) { receive(.frame($0)) }
        Self.readLines(of: child, from: STDERR_FILENO, finished: finished) { receive(.log($0)) }
    }

    /// Writes one frame and its newline; false once the host's stdin is closed.
    @discardableResult
    func send(_ line: String) -> Bool {
        do {
            try child.write(Array((line + "\n").utf8))
            return true
        } catch {
            return false
        }
    }

    /// End of stdin: the host ends at once, status 0 (spec §4).
    func closeInput() {
        child.close(STDIN_FILENO)
    }

    /// For a host that has not ended a while after its stdin closed.
    func terminate() {
        child.signal(SIGTERM)
    }

    /// Reads on a thread of its own: a blocking read on Dispatch's global
    /// queues would hold one of the few threads Swift's tasks run on.
    private static func readLines(
        of child: ChildProcess, from descriptor: Int32, finished: @escaping @Sendable () -> Void, _ line: @escaping @Sendable (String) -> Void
    ) {
        let thread = Thread {
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            // What one read(2) returns: a line never waits for the next.
            while let count = try? child.read(from: descriptor, into: &chunk), count > 0 {
                pending += chunk[..<count]
                while let newline = pending.firstIndex(of: 0x0A) {
                    line(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
            finished()
        }
        thread.start()
    }
}
