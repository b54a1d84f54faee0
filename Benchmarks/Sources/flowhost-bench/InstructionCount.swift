import Foundation

/// Instructions a server executes per request, counted by valgrind's
/// callgrind (this machine's hardware counters are not reachable): one run
/// with only the start, one with `requests` echoes more; the difference over
/// the count. Deterministic, unlike a time. Debug info is stripped from
/// copies of the binaries first: valgrind 3.19 cannot read Swift's DWARF 5.
enum InstructionCount {
    static var available: Bool {
        ["valgrind", "strip"].allSatisfy { tool in
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/bin/sh")
            probe.arguments = ["-c", "command -v \(tool) >/dev/null"]
            try? probe.run()
            probe.waitUntilExit()
            return probe.terminationStatus == 0
        }
    }

    /// Copies flowhost and its flow libraries into `folder`, without debug info; returns the copy of flowhost.
    static func strippedFlowhost(_ flowhost: String, into folder: String) throws -> String {
        let source = (flowhost as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let libraries = try FileManager.default.contentsOfDirectory(atPath: source).filter { $0.hasPrefix("libFlow") && $0.hasSuffix(".so") }
        for name in ["flowhost"] + libraries {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: folder + "/" + name)
        }
        try run(["strip", "--strip-debug"] + (["flowhost"] + libraries).map { folder + "/" + $0 })
        return folder + "/flowhost"
    }

    /// Instructions per request for `argv` answering `requests` echoes after `preamble`.
    static func perRequest(_ argv: [String], preamble: String, requests: Int, folder: String) throws -> Double {
        var lines = preamble
        let base = try collected(argv, input: lines, folder: folder)
        for id in 1...requests { lines += Requests.echo(id) }
        let loaded = try collected(argv, input: lines, folder: folder)
        return Double(loaded - base) / Double(requests)
    }

    private static func collected(_ argv: [String], input: String, folder: String) throws -> Int {
        let inputPath = folder + "/callgrind-input"
        try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv
        process.standardInput = FileHandle(forReadingAtPath: inputPath)
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let line = text.split(separator: "\n").first(where: { $0.contains("Collected :") }),
            let count = Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces))
        else { throw BenchError("callgrind counted nothing for \(argv[0]): \(text.suffix(300))") }
        return count
    }

    private static func run(_ argv: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(argv[0]) failed") }
    }
}
