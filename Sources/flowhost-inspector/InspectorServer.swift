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
/// gets 403 and nothing else. The browsers' connections are the front
/// door's (`FrontDoor`); FlyingFox serves the routes behind it.
struct InspectorServer {
    let arguments: InspectorArguments
    let flowhost: String
    let token = AccessToken()
    let page: InspectorPage

    func run(listening: @escaping @Sendable (String) -> Void) async throws {
        // Bound first: a port in use is reported before anything else is made.
        let (listener, port) = try FrontDoor.listen(port: arguments.port)
        let gate = Gate(token: token)
        gate.port.withLock { $0 = port }
        // The page names its script and style with the token, so the browser can fetch them.
        let html = Data(String(decoding: page.html, as: UTF8.self).replacingOccurrences(of: "{{token}}", with: token.value).utf8)
        let page = self.page
        let hosts = Locked(arguments.serveOptions)
        let bridge = HostBridge(executable: flowhost) { hosts.withLock { $0 } }
        let back = try BackServer { server in
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
            await server.appendRoute(HTTPRoute("GET \(Gate.webSocketPath)")) { request in
                guard gate.admits(request, webSocket: true) else { return Gate.forbidden }
                return try await WebSocketHTTPHandler.webSocket(bridge).handleRequest(request)
            }
            await server.appendRoute("*") { request in
                guard gate.admits(request) else { return Gate.forbidden }
                return HTTPResponse(statusCode: .notFound, headers: Self.headers(type: "text/plain; charset=utf-8"), body: Data("not found\n".utf8))
            }
        }
        do {
            let options = try Self.checkedServeOptions(arguments.serveOptions, flowhost: flowhost, port: port, hostConfigPath: back.hostConfigPath)
            hosts.withLock { $0 = options }
            try await back.start()
        } catch {
            back.remove()
            throw error
        }
        let front = FrontDoor(gate: gate, limits: .current(environment: ProcessInfo.processInfo.environment), back: back)
        let task = Task { try await front.run(on: listener) }
        listening("http://127.0.0.1:\(port)/?token=\(token.value)")
        try await task.value
    }

    /// The hosts' serve options, checked by starting one (`HostCheck`): with
    /// the page's WebAuthn relying party in their config (`HostConfig`).
    /// A host that refuses that config but starts without it (one that
    /// predates WebAuthn) runs without it, and keyCustody "webauthn" is
    /// unavailable; one that refuses both is reported in its own words.
    static func checkedServeOptions(_ serveOptions: [String], flowhost: String, port: UInt16, hostConfigPath: String) throws(InspectorError) -> [String] {
        guard let withWebAuthn = HostConfig.write(serveOptions: serveOptions, port: port, to: hostConfigPath) else {
            try HostCheck.run(flowhost: flowhost, serveOptions: serveOptions)
            return serveOptions
        }
        let refusal: InspectorError
        do {
            try HostCheck.run(flowhost: flowhost, serveOptions: withWebAuthn)
            return withWebAuthn
        } catch { refusal = error }
        try HostCheck.run(flowhost: flowhost, serveOptions: serveOptions)
        InspectorLog.logger.warning("the hosts run without the page's webauthn config, so keyCustody webauthn is unavailable: \(refusal.description)")
        return serveOptions
    }

    /// Every answer's headers, FlyingFox's and the front door's.
    static func headerFields(type: String) -> [(name: String, value: String)] {
        [
            ("Content-Type", type),
            ("Cache-Control", "no-store"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Content-Security-Policy",
             "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
        ]
    }

    static func headers(type: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in headerFields(type: type) { headers[HTTPHeader(name)] = value }
        return headers
    }

    static func file(_ body: Data, type: String) -> HTTPResponse {
        HTTPResponse(statusCode: .ok, headers: headers(type: type), body: body)
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
