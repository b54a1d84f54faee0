import CJansson
import FlowHostPOSIX
import FlowHostVocabulary
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
    case invalid(id: JSON, error: FlowHostError)

    /// Classifies one parsed value (an element of a batch, or a whole frame
    /// that is not an array).
    ///
    /// On the path of every message, so it reads members through jansson
    /// directly and wraps only what it hands on (`id`, `params`).
    public static func classify(_ value: JSON) -> IncomingMessage {
        value.withUnsafeRaw { raw in classify(raw) }
    }

    private static func classify(_ raw: UnsafeMutablePointer<json_t>) -> IncomingMessage {
        guard raw.pointee.type == JSON_OBJECT else {
            return .invalid(id: .null, error: FlowHostError.invalidRequest.withMessage("Invalid Request: not an object"))
        }
        let rawID = json_object_get(raw, "id")
        let idIsValid = rawID.map { isValidID($0) } ?? true
        let replyID: JSON = idIsValid ? (rawID.map { JSON(borrowing: $0) } ?? .null) : .null

        guard let version = json_object_get(raw, "jsonrpc"), version.pointee.type == JSON_STRING,
            strcmp(json_string_value(version), "2.0") == 0
        else {
            return .invalid(id: replyID, error: FlowHostError.invalidRequest.withMessage("Invalid Request: jsonrpc must be \"2.0\""))
        }
        guard idIsValid else {
            return .invalid(id: .null, error: FlowHostError.invalidRequest.withMessage("Invalid Request: id must be a string, a number or null"))
        }

        if let method = json_object_get(raw, "method") {
            guard method.pointee.type == JSON_STRING else {
                return .invalid(id: replyID, error: FlowHostError.invalidRequest.withMessage("Invalid Request: method must be a string"))
            }
            let name = string(method)
            let params = json_object_get(raw, "params")
            if let params, params.pointee.type != JSON_OBJECT, params.pointee.type != JSON_ARRAY {
                return .invalid(id: replyID, error: FlowHostError.invalidRequest.withMessage("Invalid Request: params must be an object or an array"))
            }
            let known = 2 + (rawID == nil ? 0 : 1) + (params == nil ? 0 : 1)
            if json_object_size(raw) != known {
                let extra = JSON(borrowing: raw).keys.first { !["jsonrpc", "id", "method", "params"].contains($0) } ?? ""
                return .invalid(id: replyID, error: FlowHostError.invalidRequest.withMessage("Invalid Request: unknown member \"\(extra)\""))
            }
            let wrappedParams = params.map { JSON(borrowing: $0) }
            if rawID != nil { return .request(id: replyID, method: name, params: wrappedParams) }
            return .notification(method: name, params: wrappedParams)
        }

        let result = json_object_get(raw, "result")
        let error = json_object_get(raw, "error")
        if rawID != nil, (result == nil) != (error == nil) {
            return .response(id: replyID, result: result.map { JSON(borrowing: $0) }, error: error.map { JSON(borrowing: $0) })
        }
        return .invalid(id: replyID, error: FlowHostError.invalidRequest.withMessage("Invalid Request: no method, and not a response"))
    }

    private static func isValidID(_ id: UnsafeMutablePointer<json_t>) -> Bool {
        switch id.pointee.type {
        case JSON_STRING, JSON_INTEGER, JSON_REAL, JSON_NULL: true
        default: false
        }
    }

    private static func string(_ value: UnsafeMutablePointer<json_t>) -> String {
        let length = json_string_length(value)
        return json_string_value(value).withMemoryRebound(to: UInt8.self, capacity: length) {
            String(utf8: UnsafeBufferPointer(start: $0, count: length))
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
