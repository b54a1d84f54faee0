import FlyingFox
import FlyingSocks
import Foundation

/// The web side: the page and its WebSocket, on 127.0.0.1 only, for
/// requests that carry the token.
///
/// Every request must name this server as its Host (a DNS-rebinding page
/// names its own); a WebSocket must also come from this server's origin
/// (a page elsewhere that learnt the port cannot drive a host with the
/// browser's help). A request that fails either, or has no valid token,
/// gets 403 and nothing else.
struct InspectorServer {
    let arguments: InspectorArguments
    let flowhost: String
    let token = AccessToken()
    let page: InspectorPage

    func run(listening: @escaping @Sendable (String) -> Void) async throws {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: arguments.port), logger: FlyingFoxLog())
        let gate = Gate(token: token)
        // The page names its script and style with the token, so the browser can fetch them.
        let html = Data(String(decoding: page.html, as: UTF8.self).replacingOccurrences(of: "{{token}}", with: token.value).utf8)
        let page = self.page
        let bridge = HostBridge(executable: flowhost, arguments: arguments.serveOptions)
        await server.appendRoute("GET /") { request in
            guard gate.admits(request) else { return Gate.forbidden }
            return Self.file(html, type: "text/html; charset=utf-8")
        }
        await server.appendRoute("GET /inspector.js") { request in
            guard gate.admits(request) else { return Gate.forbidden }
            return Self.file(page.script, type: "text/javascript; charset=utf-8")
        }
        await server.appendRoute("GET /inspector.css") { request in
            guard gate.admits(request) else { return Gate.forbidden }
            return Self.file(page.style, type: "text/css; charset=utf-8")
        }
        await server.appendRoute("GET /host") { request in
            guard gate.admits(request, webSocket: true) else { return Gate.forbidden }
            return try await WebSocketHTTPHandler.webSocket(bridge).handleRequest(request)
        }
        await server.appendRoute("*") { request in
            guard gate.admits(request) else { return Gate.forbidden }
            return HTTPResponse(statusCode: .notFound, headers: Self.headers(type: "text/plain; charset=utf-8"), body: Data("not found\n".utf8))
        }
        let task = Task { try await server.run() }
        try await server.waitUntilListening()
        guard case .ip4(_, let port)? = await server.listeningAddress else { throw SocketError.unsupportedAddress }
        gate.port.withLock { $0 = port }
        listening("http://127.0.0.1:\(port)/?token=\(token.value)")
        try await task.value
    }

    static func headers(type: String) -> HTTPHeaders {
        [
            .contentType: type,
            .cacheControl: "no-store",
            HTTPHeader("Referrer-Policy"): "no-referrer",
            HTTPHeader("X-Content-Type-Options"): "nosniff",
            HTTPHeader("X-Frame-Options"): "DENY",
            HTTPHeader("Content-Security-Policy"):
                "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
        ]
    }

    static func file(_ body: Data, type: String) -> HTTPResponse {
        HTTPResponse(statusCode: .ok, headers: headers(type: type), body: body)
    }
}

/// The token, Host and Origin checks.
///
/// `@unchecked Sendable`: `port` is written once, under its lock, before
/// the address is printed (so before any request can carry the token),
/// and read under it.
final class Gate: @unchecked Sendable {
    let token: AccessToken
    let port = Locked<UInt16>(0)

    init(token: AccessToken) { self.token = token }

    static let forbidden = HTTPResponse(
        statusCode: .forbidden, headers: InspectorServer.headers(type: "text/plain; charset=utf-8"),
        body: Data("forbidden: open the address flowhost inspect printed, with its token\n".utf8))

    func admits(_ request: HTTPRequest, webSocket: Bool = false) -> Bool {
        let port = self.port.withLock { $0 }
        let authorities = ["127.0.0.1:\(port)", "localhost:\(port)"]
        guard let host = request.headers[.host], authorities.contains(host.lowercased()) else { return false }
        if webSocket {
            guard let origin = request.headers[HTTPHeader("Origin")],
                  authorities.map({ "http://" + $0 }).contains(origin.lowercased())
            else { return false }
        }
        return token.admits(request.query["token"])
    }
}

/// A value behind a lock.
///
/// `@unchecked Sendable`: `value` is only touched inside `withLock`.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
