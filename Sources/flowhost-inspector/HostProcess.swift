import Foundation

/// One `flowhost` child: its stdin takes frames, its stdout and stderr
/// come back line by line, and its end comes last, after every line.
///
/// `@unchecked Sendable`: `process` and the pipes are set up in `init`
/// and never reassigned; `send` and `closeInput` are called from one task
/// (the bridge's reader of the page), the readers run on their own queues
/// and touch only their own buffers.
final class HostProcess: @unchecked Sendable {
    enum Output: Sendable {
        case frame(String)
        case log(String)
        case ended(status: Int32, signalled: Bool)
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    /// Readers still reading; the last one to finish reports the end.
    private let readersLeft = Locked(2)

    let pid: Int32
    let command: [String]

    /// Starts the host; `receive` gets each line, then `.ended` once.
    init(executable: String, arguments: [String], receive: @escaping @Sendable (Output) -> Void) throws {
        command = [executable] + arguments
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        // Foundation's `Process` closes every other descriptor in the child
        // (the listening socket and the browser's connections included;
        // test_inspector_access checks it).
        try process.run()
        pid = process.processIdentifier
        let process = self.process, readersLeft = self.readersLeft
        let finished: @Sendable () -> Void = {
            guard readersLeft.withLock({ $0 -= 1; return $0 }) == 0 else { return }
            process.waitUntilExit()
            receive(.ended(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal))
        }
        Self.readLines(from: output.fileHandleForReading, finished: finished) { receive(.frame($0)) }
        Self.readLines(from: errors.fileHandleForReading, finished: finished) { receive(.log($0)) }
    }

    /// Writes one frame and its newline; false once the host's stdin is closed.
    @discardableResult
    func send(_ line: String) -> Bool {
        do {
            try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
            return true
        } catch {
            return false
        }
    }

    /// End of stdin: the host ends at once, status 0 (spec §4).
    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// For a host that has not ended a while after its stdin closed.
    func terminate() {
        if process.isRunning { process.terminate() }
    }

    /// Reads on a thread of its own: a blocking read on Dispatch's global
    /// queues would hold one of the few threads Swift's tasks run on.
    private static func readLines(from handle: FileHandle, finished: @escaping @Sendable () -> Void, _ line: @escaping @Sendable (String) -> Void) {
        let thread = Thread {
            var pending = Data()
            // `availableData`: what one read(2) returns (`read(upToCount:)`
            // waits for the whole count, so a line would wait for the next).
            while case let chunk = handle.availableData, !chunk.isEmpty {
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    line(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
            finished()
        }
        thread.start()
    }
}
