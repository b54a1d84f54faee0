import CFlowHostABI
import FlowHostVocabulary
import FlowJSON
import JSONRPC

extension FlowHostError {
    /// Reads an error a plugin filled in. Positive codes are SDK refusals,
    /// unless the error is a client's answer the plugin passes on (its
    /// `short_code` says so): that one keeps its code and data as the client gave them.
    init(abi error: inout flowhost_error_v1) {
        let given = String(cString: flowhost_error_message(&error))
        let message = given.isEmpty ? "the flow gave no message" : given
        let data = error.data.map { JSON(taking: $0) }
        error.data = nil
        let code = Int(error.code)
        if error.short_code == FLOWHOST_SHORT_CODE_CLIENT_ANSWER {
            self.init(ErrorCode(rawValue: code), message: message, data: data, answeredByClient: true)
        } else if code > 0 {
            self = .sdk(code, shortCode: Int(error.short_code), message)
        } else if code == 0 {
            self = FlowHostError.internalError.withMessage("flow failed without an error code: \(message)")
        } else {
            self.init(ErrorCode(rawValue: code), message: message, data: data)
        }
    }

    /// Fills an error struct for a plugin (the plugin then owns `data`).
    func fill(_ error: UnsafeMutablePointer<flowhost_error_v1>?) {
        guard let error else { return }
        flowhost_error_set(error, Int32(clamping: code.rawValue), abiShortCode, message)
        error.pointee.data = data?.newReference()
    }

    /// `short_code`: the marker of a client's answer, and only of one.
    var abiShortCode: Int32 {
        if answeredByClient { return FLOWHOST_SHORT_CODE_CLIENT_ANSWER }
        let short = Int32(clamping: shortCode)
        return short == FLOWHOST_SHORT_CODE_CLIENT_ANSWER ? Int32(clamping: code.rawValue) : short
    }
}
