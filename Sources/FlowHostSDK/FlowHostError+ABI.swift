import CFlowHostABI
import FlowHostVocabulary
import FlowJSON

/// A flow's errors cross the plugin boundary as the ABI's error struct.
extension FlowHostError {
    func fill(_ error: UnsafeMutablePointer<flowhost_error_v1>?) {
        guard let error else { return }
        flowhost_error_set(error, Int32(clamping: code.rawValue), Int32(clamping: shortCode), message)
        error.pointee.data = data?.newReference()
    }

    /// Reads an error the host filled in (borrowing its `data`).
    init(abi error: UnsafePointer<flowhost_error_v1>) {
        var copy = error.pointee
        let message = String(cString: flowhost_error_message(&copy))
        let code = Int(copy.code)
        if code > 0 {
            self = .sdk(code, shortCode: Int(copy.short_code), message)
        } else {
            self.init(ErrorCode(rawValue: code), message: message, data: copy.data.map { JSON(borrowing: $0) })
        }
    }
}
