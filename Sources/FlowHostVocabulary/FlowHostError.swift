import FlowJSON

/// The one error that crosses FlowHost's seams: a code from the contract
/// (`ErrorCode`), a message, and optional data, exactly as a JSON-RPC error
/// object carries them. The transport sends it, the engine and the host
/// services refuse with it, and a flow throws it or receives it from a
/// call. The domains keep errors of their own (`CredentialError`,
/// `StoreError`, `DeviceError`, …) and map them to this one at their edge.
/// Each plugin image has its own copy of this type; what crosses the
/// plugin boundary is the ABI's `flowhost_error_v1`.
public struct FlowHostError: Error, CustomStringConvertible, Sendable {
    public var code: ErrorCode
    public var message: String
    /// Kept as JSON text: errors must be `Sendable`, jansson values are not.
    private var dataText: String?
    public var data: JSON? {
        get { dataText.flatMap { try? JSON.parse($0) } }
        set { dataText = newValue?.serialized() }
    }

    /// The client's error answer to a host request, as the client gave it.
    /// Its code is the client's choice, so it is never the host's word nor
    /// the SDK's: a client's -32800 is no cancellation, its 141 no refusal.
    /// Only the host sets it (across the plugin boundary it is `short_code`
    /// `FLOWHOST_SHORT_CODE_CLIENT_ANSWER`, which a client cannot reach).
    public var answeredByClient: Bool

    public init(_ code: ErrorCode, message: String, data: JSON? = nil, answeredByClient: Bool = false) {
        self.code = code
        self.message = message
        self.dataText = data?.serialized()
        self.answeredByClient = answeredByClient
    }

    public var description: String { "\(code) \(message)" }

    public func withData(_ data: JSON) -> FlowHostError { FlowHostError(code, message: message, data: data, answeredByClient: answeredByClient) }

    public func withMessage(_ message: String) -> FlowHostError { FlowHostError(code, message: message, data: data, answeredByClient: answeredByClient) }

    /// Whether this is the host's cancellation of what the flow waited for
    /// (a reset dialogue), not a client's answer that happens to use its code.
    public var isCancellation: Bool { code == .requestCancelled && !answeredByClient }

    /// The JSON-RPC error object.
    public func json() -> JSON {
        let object: JSON = ["code": .int(code.rawValue), "message": .string(message)]
        if let data { object["data"] = data }
        return object
    }

    /// The SDK's `shortErrorCode` of a refusal; the code itself otherwise.
    public var shortCode: Int { (answeredByClient ? nil : data?["shortErrorCode"]?.intValue) ?? code.rawValue }

    // MARK: JSON-RPC 2.0

    public static let parseError = FlowHostError(.parseError, message: "Parse error")
    public static let invalidRequest = FlowHostError(.invalidRequest, message: "Invalid Request")
    public static let methodNotFound = FlowHostError(.methodNotFound, message: "Method not found")
    public static let invalidParams = FlowHostError(.invalidParams, message: "Invalid params")
    public static let internalError = FlowHostError(.internalError, message: "Internal error")

    /// -32602 with `data` naming the offending field.
    public static func invalidParams(field: String, reason: String) -> FlowHostError {
        FlowHostError(.invalidParams, message: "Invalid params: \(field): \(reason)", data: ["field": .string(field), "reason": .string(reason)])
    }

    // MARK: The SDK's refusals

    /// An API call refused as the REL-ID SDK's sync `RDNAError` would
    /// report it: the long code is the JSON-RPC code, and `data` carries
    /// `longErrorCode` and `shortErrorCode` (the long one unless given).
    public static func sdk(_ longErrorCode: Int, shortCode: Int? = nil, _ message: String) -> FlowHostError {
        FlowHostError(
            .sdk(longErrorCode), message: message,
            data: ["longErrorCode": .int(longErrorCode), "shortErrorCode": .int(shortCode ?? longErrorCode)])
    }
}
