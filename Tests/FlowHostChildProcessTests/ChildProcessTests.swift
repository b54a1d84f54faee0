import FlowHostChildProcess
import FlowHostPOSIX
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Real children (/bin/sh), real pipes.
@Suite struct ChildProcessTests {
    static func shell(_ script: String, _ descriptors: [Int32: ChildDescriptor], environment: [String]? = nil, newSession: Bool = false)
        throws -> ChildProcess
    {
        try ChildProcess(["/bin/sh", "-c", script], environment: environment, descriptors: descriptors, newSession: newSession)
    }

    @Test func writesToTheChildAndReadsItsOutputToTheEnd() throws {
        let child = try Self.shell("tr a-z A-Z", [0: .pipeToChild, 1: .pipeFromChild])
        try child.write(Array("hello\n".utf8))
        child.close(0)
        let (bytes, cut) = try child.readToEnd(limit: 100)
        #expect(String(utf8: bytes) == "HELLO\n" && !cut)
        #expect(child.wait() == child.wait(), "a second wait gives the same end")
        #expect(child.wait().code == 0)
    }

    /// Past the bound the output is read and dropped: the child never
    /// blocks on a full pipe, and the reader says it was cut.
    @Test func readingToTheEndKeepsOnlyTheBound() throws {
        let child = try Self.shell("head -c 300000 /dev/zero", [1: .pipeFromChild])
        let (bytes, cut) = try child.readToEnd(limit: 10)
        #expect(bytes.count == 10 && cut)
        #expect(child.wait().code == 0)
    }

    @Test func readingToTheEndGivesUpAtItsTimeout() throws {
        let child = try Self.shell("sleep 5", [1: .pipeFromChild], newSession: true)
        #expect(throws: SystemError.self) { try child.readToEnd(limit: 10, timeoutMilliseconds: 50) }
    }

    /// Only the named descriptors: an open descriptor of this process that
    /// is not close-on-exec does not reach the child.
    @Test func theChildHasOnlyTheDescriptorsItIsGiven() throws {
        let stray = open("/dev/null", O_RDONLY)
        defer { close(stray) }
        #expect(fcntl(stray, F_GETFD) & FD_CLOEXEC == 0)
        #expect(stray > 5)
        let child = try Self.shell("ls /proc/self/fd", [0: .nothing, 1: .pipeFromChild, 2: .nothing, 5: .nothing])
        let listed = String(utf8: try child.readToEnd(limit: 4096).bytes).split(separator: "\n").map(String.init)
        // 3 is ls's own, of the folder it lists (the lowest free number).
        #expect(Set(listed) == ["0", "1", "2", "3", "5"], "listed: \(listed)")
        _ = child.wait()
    }

    /// A parent descriptor at a number another child descriptor is to get
    /// is moved out of the way first: here two descriptors trade places.
    /// They are placed far above the lowest free numbers, which the tests
    /// running beside this one take.
    @Test func descriptorsAreMappedWithoutOverwritingEachOther() throws {
        var first: [Int32] = [-1, -1], second: [Int32] = [-1, -1]
        #expect(pipe(&first) == 0 && pipe(&second) == 0)
        let a = fcntl(first[1], F_DUPFD, 900)
        let b = fcntl(second[1], F_DUPFD, a + 1)
        #expect(a >= 900 && b > a)
        close(first[1])
        close(second[1])
        defer { for fd in [first[0], second[0]] { close(fd) } }
        let child = try Self.shell("echo one >/proc/self/fd/\(a); echo two >/proc/self/fd/\(b)", [a: .parent(b), b: .parent(a)])
        #expect(child.wait().code == 0)
        close(a)
        close(b)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(first[0], &buffer, 16) == 4 && String(utf8: Array(buffer[..<3])) == "two")
        #expect(read(second[0], &buffer, 16) == 4 && String(utf8: Array(buffer[..<3])) == "one")
    }

    @Test func theEnvironmentIsTheOneGiven() throws {
        let child = try Self.shell("printf %s \"$ONLY:$HOME\"", [1: .pipeFromChild], environment: ["ONLY=this"])
        #expect(String(utf8: try child.readToEnd(limit: 100).bytes) == "this:")
        _ = child.wait()
    }

    @Test func aProgramThatCannotStartIsATypedError() {
        do {
            _ = try ChildProcess(["/nonexistent/program"], descriptors: [:])
            Issue.record("it started")
        } catch {
            #expect(error.step == .start && error.errno == ENOENT)
            #expect(error.description == "cannot start /nonexistent/program: No such file or directory")
        }
    }

    /// A wait with a limit leaves a running child alone; a signal to a
    /// session leader reaches its whole group.
    @Test func aTimedWaitThenASignalEndTheChildAndWhatItStarted() throws {
        let child = try Self.shell("sleep 30 & echo $!; wait", [1: .pipeFromChild], newSession: true)
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = try child.read(into: &buffer)
        let sleeper = pid_t(String(utf8: Array(buffer[..<count])).split(separator: "\n").first.flatMap { Int32($0) } ?? 0)
        #expect(sleeper > 0)
        #expect(child.wait(milliseconds: 50) == nil)
        child.signal(SIGKILL)
        let end = child.wait()
        #expect(end.signalled && end.signal == SIGKILL && end.code == 128 + SIGKILL)
        var gone = false
        for _ in 0..<200 where !gone {
            gone = kill(sleeper, 0) != 0 || Self.isZombie(sleeper)
            if !gone { usleep(10_000) }
        }
        #expect(gone, "the session's other process was killed too")
    }

    /// The owner's end: a child still running is killed and reaped.
    @Test func anOwnerThatGoesReapsItsChild() throws {
        var pid: pid_t = 0
        do {
            let child = try Self.shell("sleep 30", [0: .pipeToChild])
            pid = child.pid
        }
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD, "already reaped")
    }

    static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? SystemFile.read("/proc/\(pid)/stat") else { return true }
        let text = String(utf8: stat)
        guard let close = text.lastIndex(of: ")") else { return false }
        return text[text.index(close, offsetBy: 2)] == "Z"
    }
}
