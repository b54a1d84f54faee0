import FlyingFox
import FlyingSocks
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FlyingFox, serving the routes on a Unix socket in a directory only this
/// user can enter: the front door is its one client, so the browsers'
/// connections it sees have shown the token. Should it stop (FlyingFox
/// stops on an error of its accept), it is started again on the same path.
/// The hosts' config (`HostConfig`) is written in the same directory.
final class BackServer: Sendable {
    let directory: String
    let path: String
    let hostConfigPath: String
    private let routes: @Sendable (HTTPServer) async -> Void

    init(routes: @escaping @Sendable (HTTPServer) async -> Void) throws {
        // sun_path holds 108 bytes: a long TMPDIR is passed over for /tmp.
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.utf8.count < 60 ? $0 : nil } ?? "/tmp"
        var template = Array("\(base)/flowhost-inspector.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SocketError.makeFailed("mkdtemp") }
        directory = String(cString: made)
        path = directory + "/http"
        hostConfigPath = directory + "/host-config.json"
        self.routes = routes
        Self.removeOnSignal(path: path, hostConfigPath: hostConfigPath, directory: directory)
    }

    /// Serves until the process ends; returns once the first server listens.
    func start() async throws {
        let first = try await listen()
        Task {
            var server = first
            while true {
                do { try await server.task.value } catch {
                    InspectorLog.logger.error("the inspector's HTTP server stopped (\(error.localizedDescription)); starting it again")
                }
                while true {
                    try? await Task.sleep(for: .milliseconds(100))
                    if let again = try? await listen() { server = again; break }
                }
            }
        }
    }

    private func listen() async throws -> (server: HTTPServer, task: Task<Void, any Error>) {
        unlink(path)
        let server = HTTPServer(address: sockaddr_un.unix(path: path), logger: FlyingFoxLog())
        await routes(server)
        let task = Task { try await server.run() }
        do {
            try await server.waitUntilListening()
        } catch {
            task.cancel()
            throw error
        }
        return (server, task)
    }

    /// For an inspector that cannot start.
    func remove() {
        unlink(path)
        unlink(hostConfigPath)
        rmdir(directory)
    }

    /// The socket and its directory go when Ctrl-C, SIGTERM or a closed
    /// terminal ends the inspector. A handler, not SIG_IGN and a dispatch source: a handler
    /// is reset by exec, so the hosts still end on SIGTERM.
    private static func removeOnSignal(path: String, hostConfigPath: String, directory: String) {
        signalPaths = (strdup(path)!, strdup(hostConfigPath)!, strdup(directory)!)
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { number in
                if let (path, hostConfigPath, directory) = signalPaths {
                    unlink(path)
                    unlink(hostConfigPath)
                    rmdir(directory)
                }
                signal(number, SIG_DFL)
                raise(number)
            }
        }
    }
}

/// What the signal handler removes, as C strings made once.
/// `nonisolated(unsafe)`: written once in `removeOnSignal`, before the
/// handlers that read it are installed, and never changed after.
nonisolated(unsafe) private var signalPaths: (UnsafeMutablePointer<CChar>, UnsafeMutablePointer<CChar>, UnsafeMutablePointer<CChar>)?
