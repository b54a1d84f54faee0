import CFlowHostABI
import FlowHostVocabulary
import FlowJSON

/// Why a flow refused a call, or why a call it made failed. An SDK refusal
/// (`ErrorCode.sdk`) is sent as the JSON-RPC error code with `data
/// {longErrorCode, shortErrorCode}`; the others are spec §3's codes.
public struct FlowError: Error, CustomStringConvertible {
    public var code: ErrorCode
    public var shortCode: Int
    public var message: String
    /// Kept as JSON text: errors must be `Sendable`, jansson values are not.
    private var dataText: String?
    public var data: JSON? {
        get { dataText.flatMap { try? JSON.parse($0) } }
        set { dataText = newValue?.serialized() }
    }

    public init(_ code: ErrorCode, shortCode: Int? = nil, message: String, data: JSON? = nil) {
        self.code = code
        self.shortCode = shortCode ?? code.rawValue
        self.message = message
        self.dataText = data?.serialized()
    }

    public var description: String { "\(code) \(message)" }

    /// A refusal as the SDK's sync `RDNAError` would give it.
    public static func sdk(_ code: Int, shortCode: Int? = nil, _ message: String) -> FlowError {
        FlowError(.sdk(code), shortCode: shortCode, message: message)
    }

    /// -32602 naming the offending field.
    public static func invalidParams(field: String, reason: String) -> FlowError {
        FlowError(.invalidParams, message: "Invalid params: \(field): \(reason)",
            data: ["field": .string(field), "reason": .string(reason)])
    }

    public static let internalError = FlowError(.internalError, message: "Internal error")
    public static let methodNotFound = FlowError(.methodNotFound, message: "Method not found")

    func fill(_ error: UnsafeMutablePointer<flowhost_error_v1>?) {
        guard let error else { return }
        flowhost_error_set(error, Int32(clamping: code.rawValue), Int32(clamping: shortCode), message)
        error.pointee.data = data?.newReference()
    }

    init(abi error: UnsafePointer<flowhost_error_v1>) {
        var copy = error.pointee
        let message = String(cString: flowhost_error_message(&copy))
        self.init(
            ErrorCode(rawValue: Int(copy.code)), shortCode: Int(copy.short_code), message: message,
            data: copy.data.map { JSON(borrowing: $0) })
    }
}
