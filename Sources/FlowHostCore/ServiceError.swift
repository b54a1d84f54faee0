import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// Why a host service refused a call: the services' own error type. The
/// engine maps it to a JSON-RPC error (and from there to the ABI's error
/// struct) at the edge, so the services never speak the transport's types.
public struct ServiceError: Error, CustomStringConvertible {
    public let code: ErrorCode
    public let message: String
    /// Kept as text: errors must be `Sendable`, jansson values are not.
    private let dataText: String?
    public var data: JSON? { dataText.flatMap { try? JSON.parse($0) } }

    public init(_ code: ErrorCode, message: String, data: JSON? = nil) {
        self.code = code
        self.message = message
        self.dataText = data?.serialized()
    }

    public var description: String { "\(code) \(message)" }

    /// -32602 naming the offending field.
    public static func invalidParams(field: String, reason: String) -> ServiceError {
        ServiceError(.invalidParams, message: "Invalid params: \(field): \(reason)", data: ["field": .string(field), "reason": .string(reason)])
    }

    public static let internalError = ServiceError(.internalError, message: "Internal error")
    public static let unknownUser = ServiceError(.unknownUser, message: "unknown user")
    /// The store's server cannot be reached now; nothing was written.
    public static let storeUnreachable = ServiceError(.storeUnreachable, message: "The store is unreachable; nothing was changed. Try again.", data: ["retryAfterSeconds": 1])

    var rpcError: RPCError { RPCError(code, message: message, data: data) }
}
