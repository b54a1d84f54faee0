import FlyingFox
import FlyingSocks
import Foundation

/// The inspector's listening socket on 127.0.0.1, in front of FlyingFox.
///
/// FlyingFox waits for a request for as long as its peer takes, and stops
/// serving when an accept fails (EMFILE); so it listens where only this
/// process reaches it (`BackServer`), and the front door holds the
/// browsers' connections. It reads each request's head within
/// `headSeconds`, answers one that fails the gate with 403 and closes it,
/// and relays an admitted connection to FlyingFox byte for byte
/// (`Relay`). `ConnectionTable` bounds how many it holds. Nothing ends its
/// accept loop: out of descriptors, it closes the connection that has
/// waited longest for its head and accepts again.
struct FrontDoor: Sendable {
    let gate: Gate
    let limits: ConnectionLimits
    let back: BackServer

    /// Binds and listens; the port is the kernel's choice if `port` is 0.
    static func listen(port: UInt16) throws -> (socket: Socket, port: UInt16) {
        let socket = try Socket(domain: AF_INET, type: .stream)
        try socket.setValue(true, for: .localAddressReuse)
        try socket.bind(to: sockaddr_in.inet(ip4: "127.0.0.1", port: port))
        try socket.listen()
        guard case .ip4(_, let bound) = try socket.sockname() else { throw SocketError.unsupportedAddress }
        return (socket, bound)
    }

    func run(on listener: Socket) async throws {
        let pool = HTTPServer.defaultPool()
        try await pool.prepare()
        let listening = try AsyncSocket(socket: listener, pool: pool)
        let gate = self.gate
        let table = ConnectionTable(capacity: limits.capacity) { Self.admittedHeadWaiting(on: $0, gate: gate) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            group.addTask { await self.accept(on: listening, pool: pool, table: table) }
            try await group.next()
        }
    }

    private func accept(on listening: AsyncSocket, pool: some AsyncSocketPool, table: ConnectionTable) async {
        while !Task.isCancelled {
            let client: AsyncSocket
            do {
                client = try await listening.accept()
            } catch {
                // No error of accept is the end of the inspector. Out of
                // descriptors, closing a waiting connection frees one;
                // otherwise the pause keeps a listening socket that stays
                // readable from spinning.
                InspectorLog.logger.warning("cannot accept a connection: \(error.localizedDescription)")
                if Self.isOutOfDescriptors(error), await table.makeRoom() { continue }
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            guard let id = await table.open(descriptor: client.socket.file.rawValue) else {
                try? client.close()
                continue
            }
            let task = Task {
                await self.serve(client, id: id, pool: pool, table: table)
                try? client.close()
                await table.close(id)
            }
            await table.attach(task, to: id)
        }
    }

    private func serve(_ client: AsyncSocket, id: UInt64, pool: some AsyncSocketPool, table: ConnectionTable) async {
        let head: RequestHead
        do {
            head = try await Deadline.within(seconds: limits.headSeconds) {
                try await RequestHead.read(from: client) { await table.begun(id) }
            }
        } catch RequestHead.Failure.tooLarge {
            return await Self.reply(client, status: "431 Request Header Fields Too Large", body: Data("request head too large\n".utf8))
        } catch RequestHead.Failure.malformed {
            return await Self.reply(client, status: "400 Bad Request", body: Data("bad request\n".utf8))
        } catch {
            return  // no head in time, the peer left, or its place was given to a newer connection
        }
        guard gate.admits(head) else {
            return await Self.reply(client, status: "403 Forbidden", body: Gate.forbiddenBody)
        }
        await table.admit(id)
        // Two for the relay (this end and FlyingFox's accept), and some to spare.
        guard Descriptors.available() > 8 else {
            InspectorLog.logger.warning("too many open files to serve a request with the token; close a device panel")
            return await Self.reply(client, status: "503 Service Unavailable", body: Data("too many open files: close a device panel, then try again\n".utf8))
        }
        let server: AsyncSocket
        do {
            server = try await AsyncSocket.connected(to: sockaddr_un.unix(path: back.path), pool: pool, timeout: 5)
        } catch {
            InspectorLog.logger.warning("cannot reach the inspector's HTTP server: \(error.localizedDescription)")
            return await Self.reply(client, status: "503 Service Unavailable", body: Data("try again\n".utf8))
        }
        defer { try? server.close() }
        do { try await server.write(Data(head.bytes)) } catch { return }
        await Relay.run(client: client, server: server, idleSeconds: head.isWebSocket ? nil : limits.idleSeconds)
    }

    /// Whether a whole head the gate admits already waits on `descriptor`,
    /// unread (looked at, not taken: its task still reads it).
    static func admittedHeadWaiting(on descriptor: Int32, gate: Gate) -> Bool {
        guard descriptor >= 0 else { return false }
        var bytes = [UInt8](repeating: 0, count: RequestHead.maxBytes)
        let count = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_PEEK | MSG_DONTWAIT)) }
        guard count > 0, let end = RequestHead.headEnd(Array(bytes[..<count]), from: 0),
              let head = RequestHead.parse(Array(bytes[..<end])) else { return false }
        return gate.admits(head)
    }

    static func isOutOfDescriptors(_ error: any Error) -> Bool {
        guard case SocketError.failed(_, let number, _) = error else { return false }
        return [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(number)
    }

    /// A short answer, and the connection's end.
    private static func reply(_ client: AsyncSocket, status: String, body: Data) async {
        var text = "HTTP/1.1 \(status)\r\n"
        for (name, value) in InspectorServer.headerFields(type: "text/plain; charset=utf-8") { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let answer = Data(text.utf8) + body
        try? await Deadline.within(seconds: 5) { try await client.write(answer) }
    }
}

/// A time limit on an operation of a connection.
enum Deadline {
    struct Passed: Error {}

    static func within<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw Passed() }
            return value
        }
    }
}
