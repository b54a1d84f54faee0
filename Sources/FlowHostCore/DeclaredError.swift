import FlowHostVocabulary
import FlowJSON

/// An error a method declares it may return (`"errors"` in its manifest
/// entry), listed in `rpc.discover`.
public struct DeclaredError: Equatable, Sendable {
    public var code: Int
    public var message: String
    public var description: String

    public init(code: Int, message: String, description: String = "") {
        self.code = code
        self.message = message
        self.description = description
    }
}

extension MethodSpec {
    /// A flow's error as the client may see it. A method that declares its
    /// errors is held to them: another code (save the failures any flow may
    /// meet: an internal error, an isolated flow's process failing) is a
    /// flow breaking its contract, and the
    /// client gets an internal error whose data names the flow, the method
    /// and the code, never the flow's message. Nil: `error` is declared, or
    /// the method declares nothing.
    func undeclared(_ error: FlowHostError, by flow: String) -> FlowHostError? {
        let code = error.code.rawValue
        guard !errors.isEmpty, code != ErrorCode.internalError.rawValue, code != ErrorCode.flowFailed.rawValue,
            !errors.contains(where: { $0.code == code })
        else { return nil }
        return FlowHostError.internalError
            .withMessage("Internal error: flow \(flow) returned an error \(name) does not declare")
            .withData(["reason": "undeclaredError", "flow": .string(flow), "method": .string(name), "code": .int(code)])
    }
}
