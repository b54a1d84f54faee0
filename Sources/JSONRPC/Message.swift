import CJansson
import FlowJSON

/// One JSON-RPC message as it came in, checked against the 2.0 envelope rules.
public enum IncomingMessage {
    /// A call that wants an answer. `params` is an object, an array or nil.
    case request(id: JSON, method: String, params: JSON?)
    /// A call that must never be answered.
    case notification(method: String, params: JSON?)
    /// The client's answer to a request the host sent.
    case response(id: JSON, result: JSON?, error: JSON?)
    /// Not a valid message; answered with `error` and `id` (null when unknown).
    case invalid(id: JSON, error: RPCError)

    /// Classifies one parsed value (an element of a batch, or a whole frame
    /// that is not an array).
    public static func classify(_ value: JSON) -> IncomingMessage {
        guard value.kind == .object else {
            return .invalid(id: .null, error: RPCError.invalidRequest.withMessage("Invalid Request: not an object"))
        }
        let rawID = value["id"]
        let idIsValid = rawID.map { [.string, .integer, .real, .null].contains($0.kind) } ?? true
        let replyID = idIsValid ? (rawID ?? .null) : .null

        guard let version = value["jsonrpc"], version.stringValue == "2.0" else {
            return .invalid(id: replyID, error: RPCError.invalidRequest.withMessage("Invalid Request: jsonrpc must be \"2.0\""))
        }
        guard idIsValid else {
            return .invalid(id: .null, error: RPCError.invalidRequest.withMessage("Invalid Request: id must be a string, a number or null"))
        }

        if let method = value["method"] {
            guard let name = method.stringValue else {
                return .invalid(id: replyID, error: RPCError.invalidRequest.withMessage("Invalid Request: method must be a string"))
            }
            let params = value["params"]
            if let params, params.kind != .object, params.kind != .array {
                return .invalid(id: replyID, error: RPCError.invalidRequest.withMessage("Invalid Request: params must be an object or an array"))
            }
            for key in value.keys where !["jsonrpc", "id", "method", "params"].contains(key) {
                return .invalid(id: replyID, error: RPCError.invalidRequest.withMessage("Invalid Request: unknown member \"\(key)\""))
            }
            if let rawID { return .request(id: rawID, method: name, params: params) }
            return .notification(method: name, params: params)
        }

        let result = value["result"]
        let error = value["error"]
        if let rawID, (result == nil) != (error == nil) {
            return .response(id: rawID, result: result, error: error)
        }
        return .invalid(id: replyID, error: RPCError.invalidRequest.withMessage("Invalid Request: no method, and not a response"))
    }
}
