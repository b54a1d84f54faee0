import Foundation

/// Before the page is served, one host is started with the serve options
/// and asked `rpc.discover` (allowed before `initialize`), so that a bad
/// store, config or plugin folder is reported on the terminal now, in the
/// host's own words, rather than later in a browser.
enum HostCheck {
    static func run(flowhost: String, serveOptions: [String]) throws(InspectorError) {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<(answered: Bool, log: [String], status: Int32)>((false, [], 0))
        let host: HostProcess
        do {
            host = try HostProcess(executable: flowhost, arguments: serveOptions) { output in
                switch output {
                case .frame(let line): if line.contains("\"openrpc\"") { result.withLock { $0.answered = true } }
                case .log(let line): result.withLock { $0.log.append(line) }
                case .ended(let status, _):
                    result.withLock { $0.status = status }
                    done.signal()
                }
            }
        } catch {
            throw InspectorError(kind: .hostRefused, description: "cannot start the host \(flowhost): \(error)")
        }
        host.send(#"{"jsonrpc":"2.0","id":"inspector-check","method":"rpc.discover"}"#)
        host.closeInput()
        if done.wait(timeout: .now() + 30) == .timedOut {
            host.terminate()
            throw InspectorError(kind: .hostRefused, description: "the host did not answer rpc.discover within 30 s")
        }
        let (answered, log, status) = result.withLock { $0 }
        guard answered, status == 0 else {
            let said = log.isEmpty ? "" : ":\n" + log.joined(separator: "\n")
            throw InspectorError(kind: .hostRefused, description: "the host does not start with these options (exit status \(status))\(said)")
        }
    }
}
