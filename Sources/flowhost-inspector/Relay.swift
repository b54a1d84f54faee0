import FlyingSocks
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An admitted connection, passed on to FlyingFox and back byte for byte.
enum Relay {
    private enum Ended { case browser, server, idle }

    /// Until FlyingFox's side ends or (with `idleSeconds`) neither side has
    /// sent anything for that long. When the browser stops sending,
    /// FlyingFox is told (its socket's sending side is shut) and what it
    /// still answers is relayed.
    static func run(client: AsyncSocket, server: AsyncSocket, idleSeconds: Double?) async {
        let lastActivity = Locked(ContinuousClock.now)
        await withTaskGroup(of: Ended.self) { group in
            group.addTask {
                await pump(from: client, to: server, activity: lastActivity)
                return .browser
            }
            group.addTask {
                await pump(from: server, to: client, activity: lastActivity)
                return .server
            }
            if let idleSeconds {
                group.addTask {
                    await quiet(for: .seconds(idleSeconds), since: lastActivity)
                    return .idle
                }
            }
            if await group.next() == .browser {
                _ = shutdown(server.socket.file.rawValue, Int32(SHUT_WR))
                _ = await group.next()
            }
            group.cancelAll()
        }
    }

    private static func pump(from source: AsyncSocket, to destination: AsyncSocket, activity: Locked<ContinuousClock.Instant>) async {
        while true {
            do {
                let bytes = try await source.read(atMost: 16 * 1024)
                activity.withLock { $0 = .now }
                try await destination.write(Data(bytes))
            } catch {
                return
            }
        }
    }

    /// Returns once nothing has been relayed for `idle`, or when cancelled.
    private static func quiet(for idle: Duration, since lastActivity: Locked<ContinuousClock.Instant>) async {
        while true {
            let since = lastActivity.withLock { $0 }
            if ContinuousClock.now - since >= idle { return }
            do { try await Task.sleep(until: since + idle, clock: .continuous) } catch { return }
        }
    }
}
