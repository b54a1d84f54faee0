import FlowHostVocabulary
import FlowJSON

/// A JSON-RPC error object as it goes on the wire. The transport itself
/// only makes the standard codes; what the other codes mean belongs to the
/// engine and the flows (spec §3), which map their own errors to this one
/// at the edge.
public struct RPCError: Error, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    /// `data` is kept as JSON text: errors must be `Sendable`, jansson values are not.
    private var dataText: String?
    public var data: JSON? {
        get { dataText.flatMap { try? JSON.parse($0) } }
        set { dataText = newValue?.serialized() }
    }

    public init(_ code: ErrorCode, message: String, data: JSON? = nil) {
        self.code = code
        self.message = message
        self.dataText = data?.serialized()
    }

    public var description: String { "\(code) \(message)" }

    public func withData(_ data: JSON) -> RPCError { RPCError(code, message: message, data: data) }

    public func withMessage(_ message: String) -> RPCError { RPCError(code, message: message, data: data) }

    public func json() -> JSON {
        let object: JSON = ["code": .int(code.rawValue), "message": .string(message)]
        if let data { object["data"] = data }
        return object
    }

    // MARK: JSON-RPC 2.0

    public static let parseError = RPCError(.parseError, message: "Parse error")
    public static let invalidRequest = RPCError(.invalidRequest, message: "Invalid Request")
    public static let methodNotFound = RPCError(.methodNotFound, message: "Method not found")
    public static let invalidParams = RPCError(.invalidParams, message: "Invalid params")
    public static let internalError = RPCError(.internalError, message: "Internal error")

    /// -32602 with `data` naming the offending field.
    public static func invalidParams(field: String, reason: String) -> RPCError {
        RPCError(.invalidParams, message: "Invalid params: \(field): \(reason)", data: ["field": .string(field), "reason": .string(reason)])
    }
}
