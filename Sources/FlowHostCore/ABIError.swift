import CFlowHostABI
import FlowHostVocabulary
import FlowJSON
import JSONRPC

extension FlowHostError {
    /// Reads an error a plugin filled in. Positive codes are SDK refusals.
    init(abi error: inout flowhost_error_v1) {
        let given = String(cString: flowhost_error_message(&error))
        let message = given.isEmpty ? "the flow gave no message" : given
        let data = error.data.map { JSON(taking: $0) }
        error.data = nil
        let code = Int(error.code)
        if code > 0 {
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
        flowhost_error_set(error, Int32(clamping: code.rawValue), Int32(clamping: shortCode), message)
        error.pointee.data = data?.newReference()
    }
}
