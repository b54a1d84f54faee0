import FlowHostPOSIX
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The event loop: reads the client's bytes, cuts them into frames for the
/// connection, fires its timers, watches the client process, and flushes
/// replies before it waits.
///
/// One thread does all of it, so the engine and every flow are only ever
/// entered from this loop. It knows the engine only as a `ClientConnection`.
public struct StdioServer {
    public let connection: any ClientConnection
    public let inputFD: Int32
    /// How often the client process is checked, when `initialize` named one.
    public var processCheckMilliseconds: UInt64 = 200

    public init(connection: any ClientConnection, inputFD: Int32 = STDIN_FILENO) {
        self.connection = connection
        self.inputFD = inputFD
    }

    /// Runs until EOF, `exit`, or the client's death; returns the exit status.
    public func run() -> Int32 {
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var nextProcessCheck: UInt64 = 0
        var input = FramedInput(connection: connection)
        // Made once: the loop runs for every event a host is woken for.
        var descriptors = [pollfd](repeating: pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0), count: 2)

        while true {
            connection.flushOutput()
            if let status = connection.exitStatus { return status }

            // Wait with poll only when something is due at a known time or
            // the change feed may wake the host; otherwise a plain blocking
            // read saves a system call per message.
            let wake = connection.wakeDescriptor
            if let wait = waitMilliseconds(nextProcessCheck: nextProcessCheck) ?? (wake != nil ? UInt64(Int32.max) : nil) {
                descriptors[0].revents = 0
                descriptors[1] = pollfd(fd: wake ?? -1, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptors, wake == nil ? 1 : 2, Int32(clamping: wait))
                if ready < 0, errno != EINTR {
                    connection.logger.error("poll: \(String(cString: strerror(errno)))")
                    return 1
                }
                let now = connection.clock.monotonicMilliseconds
                connection.fireTimers(now: now)
                if wake != nil, descriptors[1].revents != 0 { connection.woke() }
                if let pid = connection.clientProcessID, now >= nextProcessCheck {
                    nextProcessCheck = now + processCheckMilliseconds
                    if !Self.processExists(pid) {
                        connection.logger.info("client process \(pid) is gone; exiting")
                        connection.flushOutput()
                        return 0
                    }
                }
                if descriptors[0].revents == 0 { continue }
            }

            let count = read(inputFD, buffer.baseAddress, capacity)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                connection.logger.error("read: \(String(cString: strerror(errno)))")
                return 1
            }
            if count == 0 {
                input.finish()
                connection.flushOutput()
                return connection.exitStatus ?? 0
            }
            input.push(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    private func waitMilliseconds(nextProcessCheck: UInt64) -> UInt64? {
        var deadline = connection.nextDeadline
        if connection.clientProcessID != nil { deadline = min(deadline ?? .max, nextProcessCheck) }
        guard let deadline else { return nil }
        let now = connection.clock.monotonicMilliseconds
        return deadline > now ? deadline - now : 0
    }

    /// `kill(pid, 0)`: ESRCH means gone; EPERM means it exists but is not
    /// ours. A process that has exited but was not reaped yet (a zombie, or
    /// a dead one being torn down) still answers kill, so on Linux its state
    /// in /proc is read too: Z (zombie) and X (dead) count as gone.
    static func processExists(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? SystemFile.read("/proc/\(pid)/stat"),
            let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count
        else { return true }
        let state = stat[close + 2]
        return state != UInt8(ascii: "Z") && state != UInt8(ascii: "X")
    }
}
