import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// A whole frame from the client as the engine takes it: refused whole
/// (too large, nested too deep, not JSON, an empty batch) with the error to
/// answer with `id: null`, or one message, or a batch of them.
enum IncomingFrame {
    case refused(FlowHostError)
    case message(JSON)
    case batch([JSON])

    init(_ bytes: UnsafeRawBufferPointer, maxNestingDepth: Int) {
        if NestingDepth.exceeds(bytes, limit: maxNestingDepth) {
            self = .refused(
                FlowHostError.invalidRequest.withMessage("Invalid Request: nested deeper than \(maxNestingDepth)")
                    .withData(["limit": .int(maxNestingDepth)]))
            return
        }
        let value: JSON
        do {
            value = try JSON.parse(bytes)
        } catch {
            // Where, never what: jansson's message quotes the text near the
            // fault, and that text may be a password with a bad escape.
            let detail = "not valid JSON (line \(error.line), column \(error.column))"
            self = .refused(FlowHostError.parseError.withData(["detail": .string(detail)]))
            return
        }
        guard value.kind == .array else {
            self = .message(value)
            return
        }
        let elements = value.elements
        self = elements.isEmpty ? .refused(FlowHostError.invalidRequest.withMessage("Invalid Request: empty batch")) : .batch(elements)
    }

    /// A frame over the size limit, dropped by the framer unread.
    static func oversized(_ byteCount: Int, limit: Int) -> FlowHostError {
        FlowHostError.invalidRequest.withMessage("Invalid Request: frame exceeds \(limit) bytes")
            .withData(["limit": .int(limit), "size": .int(byteCount)])
    }
}
