import FlyingSocks
import Foundation

/// The start of a browser's request, read before anything is served: its
/// request line and headers, up to the blank line, and whatever bytes came
/// after them (passed on as they are).
struct RequestHead: Sendable {
    var method: String
    var path: String
    /// The `token` of the query, percent-decoded.
    var token: String?
    /// By lowercased name; of a repeated header, the first.
    var headers: [String: String]
    /// Everything read from the socket so far, the head included.
    var bytes: [UInt8]

    /// A head longer than this is refused (431): no page of ours sends one.
    static let maxBytes = 16 * 1024

    enum Failure: Error {
        case tooLarge
        case malformed
        /// The peer closed the connection first.
        case ended
    }

    /// Reads until the head's blank line.
    /// `begun` is called once, when some of the head came and not all.
    static func read(from socket: AsyncSocket, begun: () async -> Void = {}) async throws -> RequestHead {
        var bytes: [UInt8] = []
        var searched = 0
        while true {
            let chunk: [UInt8]
            do {
                chunk = try await socket.read(atMost: 4096)
            } catch SocketError.disconnected {
                throw Failure.ended
            }
            bytes += chunk
            if let end = headEnd(bytes, from: max(0, searched - 3)) {
                guard let head = parse(Array(bytes[..<end]), bytes: bytes) else { throw Failure.malformed }
                return head
            }
            if searched == 0 && !bytes.isEmpty { await begun() }
            searched = bytes.count
            guard bytes.count < maxBytes else { throw Failure.tooLarge }
        }
    }

    /// Where the blank line ends (after "\n\n" or "\n\r\n"), if it came.
    static func headEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    static func parse(_ head: [UInt8], bytes: [UInt8] = []) -> RequestHead? {
        // Split as bytes: to String, "\r\n" is one character.
        let lines = head.split(separator: 0x0A).map { line in
            String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
        }
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, let target = URLComponents(string: String(parts[1])) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            if headers[name] == nil { headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) }
        }
        return RequestHead(
            method: String(parts[0]), path: target.path, token: target.queryItems?.first { $0.name == "token" }?.value,
            headers: headers, bytes: bytes)
    }

    /// A WebSocket handshake, which the relay keeps open while it is quiet.
    var isWebSocket: Bool { headers["upgrade"]?.lowercased() == "websocket" }
}
