import CFlowHostIsolation
import FlowHostChildProcess
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
    /// The child is given each candidate's descriptor, not its name: it
    /// loads the files that were judged and hashed.
    static func names(of candidates: [PluginCandidate], executable: String, settings: IsolationSettings) -> [String: String] {
        guard !candidates.isEmpty else { return [:] }
        let libraries = candidates.map(\.path)
        var limits = settings.limits
        var output: Int32 = -1
        let pid = candidates.map(\.descriptor).withUnsafeBufferPointer {
            flowhost_plugin_names_spawn(executable, $0.baseAddress, $0.count, &limits, &output)
        }
        guard pid > 0, output >= 0 else { return [:] }
        let child = ChildProcess(adopting: pid, ends: [STDOUT_FILENO: output], leadsGroup: true)
        // A flow's name per library, as JSON: far less than the bound.
        guard let (text, cut) = try? child.readToEnd(limit: 64 * 1024), !cut, child.wait().code == 0,
              let answer = try? JSON.parse(String(utf8: text)), answer.count == libraries.count
        else { return [:] }
        var names: [String: String] = [:]
        for (index, library) in libraries.enumerated() {
            if let name = answer[index]?.stringValue { names[library] = name }
        }
        return names
    }
}
