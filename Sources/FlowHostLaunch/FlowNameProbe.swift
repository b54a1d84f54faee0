import CFlowHostSystem
import FlowHostCore
import FlowHostPOSIX
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// With `--isolate NAME`, which flow each library declares, learnt in one
/// child (`flowhost plugin-host --names`) under the isolation's limits:
/// no library's code runs in the host before it is known where it runs.
enum FlowNameProbe {
    /// Each library's flow name by path; a library missing from the answer
    /// (it could not tell, or the child died) is probed on its own, as before.
    static func names(of libraries: [String], executable: String, settings: IsolationSettings) -> [String: String] {
        guard !libraries.isEmpty else { return [:] }
        let arguments = [
            executable, "plugin-host", "--names",
            "--address-space", String(UInt64(settings.addressSpaceMiB) << 20),
            "--cpu-seconds", String(settings.cpuSeconds),
            "--open-files", String(settings.openFiles),
            "--",
        ] + libraries
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var output: Int32 = -1
        // Only the variables an isolated flow's child gets: the libraries' code runs there.
        let environment = flowhost_child_environment()
        defer { flowhost_free_environment(environment) }
        guard let environment else { return [:] }
        let pid = flowhost_spawn_with_environment(&argv, environment, nil, &output)
        guard pid > 0, output >= 0 else { return [:] }
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            text.append(contentsOf: buffer[..<count])
        }
        close(output)
        guard flowhost_wait(pid) == 0,
              let answer = try? JSON.parse(String(utf8: text)), answer.count == libraries.count
        else { return [:] }
        var names: [String: String] = [:]
        for (index, library) in libraries.enumerated() {
            if let name = answer[index]?.stringValue { names[library] = name }
        }
        return names
    }
}
