import FlowJSON

/// A JSON-RPC error object: the standard codes, FlowHost's own codes in the
/// server range (-32000 to -32099), and SDK refusals (positive codes).
public struct RPCError: Error, CustomStringConvertible {
    public var code: Int
    public var message: String
    /// `data` is kept as JSON text: errors must be `Sendable`, jansson values are not.
    private var dataText: String?
    public var data: JSON? {
        get { dataText.flatMap { try? JSON.parse($0) } }
        set { dataText = newValue?.serialized() }
    }

    public init(code: Int, message: String, data: JSON? = nil) {
        self.code = code
        self.message = message
        self.dataText = data?.serialized()
    }

    public var description: String { "\(code) \(message)" }

    public func withData(_ data: JSON) -> RPCError { RPCError(code: code, message: message, data: data) }

    public func withMessage(_ message: String) -> RPCError {
        RPCError(code: code, message: message, data: data)
    }

    public func json() -> JSON {
        let object: JSON = ["code": .int(code), "message": .string(message)]
        if let data { object["data"] = data }
        return object
    }

    // MARK: JSON-RPC 2.0

    public static let parseError = RPCError(code: -32700, message: "Parse error")
    public static let invalidRequest = RPCError(code: -32600, message: "Invalid Request")
    public static let methodNotFound = RPCError(code: -32601, message: "Method not found")
    public static let invalidParams = RPCError(code: -32602, message: "Invalid params")
    public static let internalError = RPCError(code: -32603, message: "Internal error")

    // MARK: FlowHost (server range)

    /// A host-to-client request got no answer in time.
    public static let requestTimedOut = RPCError(code: -32000, message: "request timed out")
    /// A request that starts a dialogue while another is in progress.
    public static let dialogueInProgress = RPCError(code: -32007, message: "Another dialogue is in progress")
    /// A host request the flow gave up on (its dialogue was reset); LSP's RequestCancelled.
    public static let requestCancelled = RPCError(code: -32800, message: "request cancelled")
    /// A request other than `initialize` came before `initialize`.
    public static let notInitialized = RPCError(code: -32002, message: "Server not initialized")
    /// A challenge answer came while no challenge was open.
    public static let noOpenChallenge = RPCError(code: -32003, message: "No open challenge")
    /// A challenge answer does not fit the open challenge (event or challengeMode).
    public static let challengeMismatch = RPCError(code: -32004, message: "Answer does not match the open challenge")
    /// A request after `shutdown`.
    public static let shuttingDown = RPCError(code: -32005, message: "Server is shutting down")

    /// An SDK-level refusal of an API call, as the REL-ID SDK's sync
    /// `RDNAError` would report it.
    public static func sdk(longErrorCode: Int, shortErrorCode: Int, errorString: String) -> RPCError {
        RPCError(
            code: longErrorCode, message: errorString,
            data: ["longErrorCode": .int(longErrorCode), "shortErrorCode": .int(shortErrorCode)])
    }

    /// -32602 with `data` naming the offending field.
    public static func invalidParams(field: String, reason: String) -> RPCError {
        RPCError(
            code: -32602, message: "Invalid params: \(field): \(reason)",
            data: ["field": .string(field), "reason": .string(reason)])
    }
}
