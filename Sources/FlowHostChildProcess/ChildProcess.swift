import CFlowHostSystem
import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program this process started (through `flowhost_spawn`), and this
/// process's ends of its pipes: the one owner of both. The child has exactly
/// the descriptors it was given, every other one closed. It is reaped by
/// `wait`, or in `deinit`, which kills it first if it still runs (a child
/// never outlives its owner unreaped).
///
/// `@unchecked Sendable`: `ends` and `termination` are touched only with
/// `lock` held; the pid is reaped under it too, so `signal` never reaches
/// a process that has been reaped (whose pid may be another's by then).
/// Each pipe end is read or written by one thread at a time (the inspector
/// reads a host's stdout and stderr on two threads and writes its stdin on
/// a third).
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    /// The child leads a session (and process group) of its own: `signal`
    /// reaches the whole group.
    private let leadsGroup: Bool
    private let lock = Lock()
    /// This process's end of each pipe, by the child's descriptor number.
    private var ends: [Int32: Int32]
    private var termination: Termination?

    /// Starts `arguments[0]` (searched in PATH when it has no slash) with
    /// `environment` ("NAME=value"; nil: this process's own) and the
    /// descriptors `descriptors` names.
    public init(
        _ arguments: [String], environment: [String]? = nil, descriptors: [Int32: ChildDescriptor], newSession: Bool = false
    ) throws(SpawnError) {
        let program = arguments.first ?? ""
        var given: [flowhost_spawn_descriptor] = []
        var ends: [Int32: Int32] = [:]
        var childEnds: [Int32] = []
        defer { for fd in childEnds { Glibc.close(fd) } }
        for (child, descriptor) in descriptors.sorted(by: { $0.key < $1.key }) {
            switch descriptor {
            case .nothing: given.append(flowhost_spawn_descriptor(child: child, parent: FLOWHOST_SPAWN_NULL))
            case .parent(let fd): given.append(flowhost_spawn_descriptor(child: child, parent: fd))
            case .pipeToChild, .pipeFromChild:
                var pair: [Int32] = [-1, -1]
                guard flowhost_pipe(&pair) == 0 else {
                    let number = errno
                    for fd in ends.values { Glibc.close(fd) }
                    throw SpawnError(program: program, step: .pipe, errno: number)
                }
                let (mine, theirs) = descriptor == .pipeToChild ? (pair[1], pair[0]) : (pair[0], pair[1])
                ends[child] = mine
                childEnds.append(theirs)
                given.append(flowhost_spawn_descriptor(child: child, parent: theirs))
            }
        }
        var error = flowhost_spawn_error()
        let pid = withUnsafeCStrings(arguments, terminated: true) { argv in
            withUnsafeCStrings(environment, terminated: true) { environment in
                given.withUnsafeBufferPointer { given in
                    var plan = flowhost_spawn_plan(
                        argv: argv, environment: environment, descriptors: given.baseAddress, descriptor_count: given.count,
                        new_session: newSession ? 1 : 0)
                    return flowhost_spawn(&plan, &error)
                }
            }
        }
        guard pid > 0 else {
            for fd in ends.values { Glibc.close(fd) }
            throw SpawnError(program: program, step: error.step == FLOWHOST_SPAWN_FAILED_COPY ? .descriptor : .start, errno: error.number)
        }
        self.pid = pid
        self.ends = ends
        leadsGroup = newSession
    }

    /// Takes over a child started elsewhere (the isolation's C code) and
    /// this process's ends of its pipes, by the child's descriptor number.
    public init(adopting pid: pid_t, ends: [Int32: Int32], leadsGroup: Bool) {
        self.pid = pid
        self.ends = ends
        self.leadsGroup = leadsGroup
    }

    deinit {
        for fd in ends.values where fd >= 0 { close(fd) }
        if termination == nil {
            signal(SIGKILL)
            var status: Int32 = 0
            _ = flowhost_reap(pid, &status)
        }
    }

    /// `body` with this process's end of the pipe at the child's descriptor
    /// `child` (-1 once closed). The descriptor stays this owner's: not to
    /// be closed, nor kept past `body`.
    public func withUnsafeDescriptor<Result, Failure: Error>(_ child: Int32, _ body: (Int32) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(lock.withLock { ends[child] ?? -1 })
    }

    /// Writes every byte to the pipe the child reads as `child`.
    public func write(_ bytes: [UInt8], to child: Int32 = STDIN_FILENO) throws(SystemError) {
        try withUnsafeDescriptor(child) { fd throws(SystemError) in
            guard fd >= 0 else { throw SystemError(operation: "write", errno: EBADF) }
            try SystemFile.writeAll(fd, bytes)
        }
    }

    /// What one read(2) of the pipe the child writes as `child` gives, into
    /// the start of `buffer`: the count, 0 at its end.
    public func read(from child: Int32 = STDOUT_FILENO, into buffer: inout [UInt8]) throws(SystemError) -> Int {
        try withUnsafeDescriptor(child) { fd throws(SystemError) in
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count >= 0 { return count }
                if errno != EINTR { throw SystemError(operation: "read", errno: errno) }
            }
        }
    }

    /// The pipe the child writes as `child`, read to its end: at most
    /// `limit` bytes kept (`cut` says more came, read and dropped), within
    /// `timeoutMilliseconds` when given.
    public func readToEnd(from child: Int32 = STDOUT_FILENO, limit: Int, timeoutMilliseconds: Int32 = -1) throws(SystemError)
        -> (bytes: [UInt8], cut: Bool)
    {
        try withUnsafeDescriptor(child) { fd throws(SystemError) in
            var bytes = [UInt8](repeating: 0, count: limit)
            var cut: Int32 = 0
            let kept = bytes.withUnsafeMutableBytes { flowhost_read_to_end(fd, $0.baseAddress, $0.count, timeoutMilliseconds, &cut) }
            guard kept >= 0 else { throw SystemError(operation: "read", errno: errno) }
            bytes.removeLast(limit - kept)
            return (bytes, cut != 0)
        }
    }

    /// Closes this process's end of the pipe at the child's `child` (for
    /// its stdin: the child reads its end).
    public func close(_ child: Int32) {
        let fd = lock.withLock { ends.updateValue(-1, forKey: child) ?? -1 }
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Sends `number` to the child (to its group when it leads one), unless
    /// it has been reaped.
    public func signal(_ number: Int32) {
        lock.withLock {
            guard termination == nil else { return }
            if !leadsGroup || kill(-pid, number) != 0 { kill(pid, number) }
        }
    }

    /// Waits for the child's end and reaps it.
    public func wait() -> Termination {
        _ = flowhost_wait_for_end(pid, -1)
        return reap()
    }

    /// As `wait`, for at most `milliseconds`: nil when the child still runs
    /// then (it is neither signalled nor reaped).
    public func wait(milliseconds: Int32) -> Termination? {
        flowhost_wait_for_end(pid, milliseconds) == 1 ? nil : reap()
    }

    private func reap() -> Termination {
        lock.withLock {
            if let termination { return termination }
            var status: Int32 = 0
            let ended = flowhost_reap(pid, &status) == 0 ? Termination(status: status) : Termination(code: 128, signalled: false)
            termination = ended
            return ended
        }
    }
}
