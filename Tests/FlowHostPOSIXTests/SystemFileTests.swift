import FlowHostPOSIX
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct SystemFileTests {
    /// A file of `bytes` in a fresh folder, which goes with the returned owner.
    static func file(_ bytes: [UInt8]) throws -> (path: String, folder: TemporaryFolder) {
        let folder = try TemporaryFolder()
        let path = folder.path + "/file"
        try SystemFile.create(path, bytes: bytes, mode: 0o600)
        return (path, folder)
    }

    @Test(arguments: [0, 1, 64, 4095, 4096, 4097, 200_000])
    func readsEveryByteOfAFileOfAnySize(_ size: Int) throws {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let (path, folder) = try Self.file(bytes)
        defer { withExtendedLifetime(folder) {} }
        #expect(try SystemFile.read(path) == bytes)
    }

    /// The read through a checked descriptor stops at a regular file's size
    /// without a read to see nothing more come, and still gets every byte
    /// of a file that grew or shrank between its `fstat` and its read.
    @Test(arguments: [0, 1, 64, 4096, 200_000])
    func aCheckedReadGetsEveryByteEvenOfAFileThatChangedMeanwhile(_ size: Int) throws {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let (path, folder) = try Self.file(bytes)
        defer { withExtendedLifetime(folder) {} }
        var seenSize = -1
        #expect(try SystemFile.readIfPresent(path, check: { seenSize = Int($0.st_size) }) == bytes)
        #expect(seenSize == size)
        let more: [UInt8] = [1, 2, 3]
        var appended = 0
        let grown = try SystemFile.readIfPresent(path, check: { _ in
            let fd = open(path, O_WRONLY | O_APPEND)
            appended = write(fd, more, more.count)
            close(fd)
        })
        #expect(appended == more.count)
        #expect(grown == bytes + more, "grew after its fstat")
        var truncated: Int32 = -1
        let shrunk = try SystemFile.readIfPresent(path, check: { _ in truncated = truncate(path, off_t(size / 2)) })
        #expect(truncated == 0)
        #expect(shrunk == Array(bytes.prefix(size / 2)), "shrank after its fstat")
        #expect(try SystemFile.readIfPresent(folder.path + "/missing", check: { _ in }) == nil)
    }

    @Test func readsAFileThatSaysItIsEmpty() throws {
        // /proc files report a size of 0 and still have content.
        let stat = try SystemFile.read("/proc/self/stat")
        #expect(stat.count > 10)
        #expect(stat.last == UInt8(ascii: "\n"))
    }

    @Test func aMissingFileIsAnError() {
        #expect(throws: SystemError.self) { try SystemFile.read("/nonexistent/flowhost-file") }
    }

    @Test func wipeZeroesInPlace() {
        var secret: [UInt8] = [1, 2, 3, 4]
        SystemFile.wipe(&secret)
        #expect(secret == [0, 0, 0, 0])
    }
}
