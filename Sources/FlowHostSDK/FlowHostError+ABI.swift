import CFlowHostABI
import FlowHostVocabulary
import FlowJSON

/// A flow's errors cross the plugin boundary as the ABI's error struct.
extension FlowHostError {
    func fill(_ error: UnsafeMutablePointer<flowhost_error_v1>?) {
        guard let error else { return }
        flowhost_error_set(error, Int32(clamping: code.rawValue), abiShortCode, message)
        error.pointee.data = data?.newReference()
    }

    /// `short_code`: the marker of a client's answer (passed on as it came), and only of one.
    var abiShortCode: Int32 {
        if answeredByClient { return FLOWHOST_SHORT_CODE_CLIENT_ANSWER }
        let short = Int32(clamping: shortCode)
        return short == FLOWHOST_SHORT_CODE_CLIENT_ANSWER ? Int32(clamping: code.rawValue) : short
    }

    /// Reads an error the host filled in (borrowing its `data`). The
    /// client's answer to a host request is told by `short_code`, never by
    /// its code's sign: whatever code the client chose, its `data` (the
    /// reason) stays, and it never reads as an SDK refusal.
    init(abi error: UnsafePointer<flowhost_error_v1>) {
        var copy = error.pointee
        let message = String(cString: flowhost_error_message(&copy))
        let code = Int(copy.code)
        let data = copy.data.map { JSON(borrowing: $0) }
        if copy.short_code == FLOWHOST_SHORT_CODE_CLIENT_ANSWER {
            self.init(ErrorCode(rawValue: code), message: message, data: data, answeredByClient: true)
        } else if code > 0 {
            self = .sdk(code, shortCode: Int(copy.short_code), message)
        } else {
            self.init(ErrorCode(rawValue: code), message: message, data: data)
        }
    }
}
