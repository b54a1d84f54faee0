import FlowHostClient
import Foundation
import XCTest

/// The built `flowhost` the tests drive: FLOWHOST_BIN_DIR, else the package's
/// own debug build. A test target cannot depend on an executable's product,
/// so scripts/test.sh builds first (as for the end-to-end suite).
enum BuiltHost {
    static var binary: String {
        get throws {
            let folder = ProcessInfo.processInfo.environment["FLOWHOST_BIN_DIR"]
                ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                    .appendingPathComponent(".build/debug").path
            let path = folder + "/flowhost"
            guard FileManager.default.isExecutableFile(atPath: path) else {
                // A failure, not a skip: a suite that silently skips proves nothing.
                throw ScenarioFailure("no built flowhost at \(path): run `swift build` first (scripts/test.sh does)")
            }
            return path
        }
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// A fresh folder, removed when the test ends.
    static func scratchFolder(for test: XCTestCase) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowhost-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder.path
    }

    /// `flowhost admin ARGS --store S --config C --json`'s JSON output.
    static func admin(_ arguments: [String], store: String, config: String) throws -> JSONValue {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try binary)
        process.arguments = ["admin"] + arguments + ["--store", store, "--config", config, "--json"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ScenarioFailure("admin \(arguments.first ?? "") exited with \(process.terminationStatus)") }
        return try JSONDecoder().decode(JSONValue.self, from: data)
    }
}

struct ScenarioFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
