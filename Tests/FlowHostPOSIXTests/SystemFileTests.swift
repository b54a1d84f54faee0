import FlowHostPOSIX
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct SystemFileTests {
    /// A file of `bytes` in a fresh folder; removed by the caller's `defer`.
    static func file(_ bytes: [UInt8]) throws -> (path: String, folder: String) {
        var template = Array("/tmp/flowhost-systemfile-XXXXXX".utf8CString)
        let folder = String(cString: try #require(mkdtemp(&template)))
        let path = folder + "/file"
        try SystemFile.create(path, bytes: bytes, mode: 0o600)
        return (path, folder)
    }

    @Test(arguments: [0, 1, 64, 4095, 4096, 4097, 200_000])
    func readsEveryByteOfAFileOfAnySize(_ size: Int) throws {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let (path, folder) = try Self.file(bytes)
        defer {
            unlink(path)
            rmdir(folder)
        }
        #expect(try SystemFile.read(path) == bytes)
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
