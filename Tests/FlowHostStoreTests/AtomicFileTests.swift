import FlowHostPOSIX
import Foundation
import Testing

/// Issue 21.13: files beside the store (the outbox key, device keys) are
/// created whole: a reader sees no file or all of it, never a short one.
@Suite struct AtomicFileTests {
    /// The test's own folder, removed with the suite's instance.
    let scratch: TemporaryFolder
    init() throws { scratch = try TemporaryFolder() }

    private func folder() throws -> String { scratch.path }

    @Test func aReaderNeverSeesAShortFile() throws {
        let path = try folder() + "/key"
        let bytes = [UInt8](repeating: 7, count: 16 << 20)
        let writing = DispatchSemaphore(value: 0)
        let seen = LockedSizes()
        let reader = Thread {
            writing.signal()
            while !seen.finished {
                var info = stat()
                if stat(path, &info) == 0 { seen.add(Int(info.st_size)) }
            }
        }
        reader.start()
        writing.wait()
        try SystemFile.create(path, bytes: bytes, mode: 0o600)
        usleep(20_000)
        seen.finish()
        #expect(seen.sizes.allSatisfy { $0 == bytes.count }, "sizes seen: \(Set(seen.sizes).sorted())")
        #expect(try SystemFile.read(path).count == bytes.count)
    }

    @Test func anExistingFileIsNeverReplacedAndNothingIsLeftBehind() throws {
        let base = try folder()
        try SystemFile.create(base + "/key", bytes: [1, 2, 3], mode: 0o600)
        #expect(throws: SystemError.self) { try SystemFile.create(base + "/key", bytes: [9], mode: 0o600) }
        #expect(try SystemFile.read(base + "/key") == [1, 2, 3])
        #expect(try FileManager.default.contentsOfDirectory(atPath: base) == ["key"])
        let mode = try FileManager.default.attributesOfItem(atPath: base + "/key")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

/// Sizes the reader thread saw; `@unchecked Sendable` because every field
/// is touched only under `lock`.
private final class LockedSizes: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [Int] = []
    private var done = false
    var sizes: [Int] { lock.withLock { seen } }
    var finished: Bool { lock.withLock { done } }
    func add(_ size: Int) { lock.withLock { seen.append(size) } }
    func finish() { lock.withLock { done = true } }
}
