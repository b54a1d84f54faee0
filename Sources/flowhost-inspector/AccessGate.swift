import FlyingFox
import Foundation

/// The token, Host and Origin checks, made twice: by the front door on a
/// request's head (a connection that fails them is answered and closed
/// before FlyingFox sees it) and by each route on every request of a
/// connection the front door let through.
///
/// `@unchecked Sendable`: `port` is written once, under its lock, before
/// the address is printed (so before any request can carry the token),
/// and read under it.
final class Gate: @unchecked Sendable {
    let token: AccessToken
    let port = Locked<UInt16>(0)

    init(token: AccessToken) { self.token = token }

    static let forbiddenBody = Data("forbidden: open the address flowhost inspect printed, with its token\n".utf8)
    static let forbidden = HTTPResponse(
        statusCode: .forbidden, headers: InspectorServer.headers(type: "text/plain; charset=utf-8"), body: forbiddenBody)

    func admits(_ request: HTTPRequest, webSocket: Bool = false) -> Bool {
        admits(host: request.headers[.host], origin: request.headers[HTTPHeader("Origin")], token: request.query["token"], webSocket: webSocket)
    }

    /// The page's WebSocket route, which must also come from this origin.
    static let webSocketPath = "/host"

    func admits(_ head: RequestHead) -> Bool {
        admits(host: head.headers["host"], origin: head.headers["origin"], token: head.token, webSocket: head.path == Self.webSocketPath)
    }

    func admits(host: String?, origin: String?, token candidate: String?, webSocket: Bool) -> Bool {
        let port = self.port.withLock { $0 }
        let authorities = ["127.0.0.1:\(port)", "localhost:\(port)"]
        guard let host, authorities.contains(host.lowercased()) else { return false }
        if webSocket {
            guard let origin, authorities.map({ "http://" + $0 }).contains(origin.lowercased()) else { return false }
        }
        return token.admits(candidate)
    }
}
