import FlyingFox
import Foundation

/// One device panel of the page: a WebSocket on one side, one host process
/// on the other. The page sends `{"kind":"frame","line":…}` (a frame for
/// the host's stdin); it receives `started`, `frame` (a line of the host's
/// stdout, as written), `log` (a line of its stderr) and `exit`, in the
/// order they happened. The socket's end closes the host's stdin.
struct HostBridge: WSMessageHandler {
    let executable: String
    /// Read as each host starts: the options are checked (and the hosts'
    /// config written) once the port is known, after the routes are made.
    let arguments: @Sendable () -> [String]

    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
        let (messages, page) = AsyncStream.makeStream(of: WSMessage.self)
        // Its three pipes, a copy of each while it starts, and some to spare.
        guard Descriptors.available() > 16 else {
            page.yield(.text(PageMessage.log("flowhost-inspector: too many open files to start a host; close a device panel")))
            page.yield(.text(PageMessage.exit(status: 127, signalled: false)))
            page.finish()
            return messages
        }
        let host: HostProcess
        do {
            host = try HostProcess(executable: executable, arguments: arguments()) { output in
                switch output {
                case .frame(let line): page.yield(.text(PageMessage.frame(line)))
                case .log(let line): page.yield(.text(PageMessage.log(line)))
                case .ended(let status, let signalled):
                    page.yield(.text(PageMessage.exit(status: status, signalled: signalled)))
                    page.finish()
                }
            }
        } catch {
            page.yield(.text(PageMessage.log("flowhost-inspector: cannot start \(executable): \(error)")))
            page.yield(.text(PageMessage.exit(status: 127, signalled: false)))
            page.finish()
            return messages
        }
        page.yield(.text(PageMessage.started(pid: host.pid, command: host.command)))
        Task {
            for await message in client {
                guard case .text(let text) = message else { continue }
                guard let line = PageMessage.frameLine(text) else {
                    page.yield(.text(PageMessage.log("flowhost-inspector: ignored a message from the page that is not {kind: frame, line} with a one-line frame")))
                    continue
                }
                host.send(line)
            }
            host.closeInput()
            try? await Task.sleep(for: .seconds(3))
            host.terminate()
        }
        return messages
    }
}

/// The messages between the page and the bridge, as JSON text.
enum PageMessage {
    static func frame(_ line: String) -> String { encode(["kind": "frame", "line": line]) }
    static func log(_ line: String) -> String { encode(["kind": "log", "line": line]) }
    static func started(pid: Int32, command: [String]) -> String {
        encode(["kind": "started", "pid": Int(pid), "command": command])
    }
    static func exit(status: Int32, signalled: Bool) -> String {
        encode(["kind": "exit", "status": Int(status), "signalled": signalled])
    }

    /// The frame in a page's message, if it is one line (a newline would
    /// make it two frames on the host's stdin).
    static func frameLine(_ text: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              object["kind"] as? String == "frame", let line = object["line"] as? String,
              !line.contains("\n"), !line.contains("\r")
        else { return nil }
        return line
    }

    private static func encode(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
