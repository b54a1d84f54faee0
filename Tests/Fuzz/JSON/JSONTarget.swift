import CFlowJSON
import CJansson
import FlowJSON
import FuzzSupport

/// FlowHost's JSON reader and writer against jansson's, on any bytes: where
/// the fast reader takes a text, jansson must take it too and read the same
/// value (keys in the same order), and FlowHost's writer must write that
/// value as jansson's does. A disagreement is a crash, so the fuzzer keeps it.
func fuzzJSON(_ input: UnsafeRawBufferPointer) {
    var padded = [UInt8](input)
    let count = padded.count
    padded.append(0)  // so that even no bytes have an address
    padded.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { text in
            guard let ours = flowhost_json_parse(text.baseAddress!, count) else { return }
            var error = json_error_t()
            guard let theirs = json_loadb(text.baseAddress!, count, fh_json_load_flags(), &error) else {
                fatalError("the fast reader took a text jansson refuses (\(String(cString: fh_json_error_text(&error))))")
            }
            let (fastValue, referenceValue) = (JSON(taking: ours), JSON(taking: theirs))
            let (fast, reference) = (fastValue.serializedByJansson(), referenceValue.serializedByJansson())
            guard fast == reference else { fatalError("read differently: \(fast.prefix(200)) against jansson's \(reference.prefix(200))") }
            let written = referenceValue.serialized()
            guard written == reference else { fatalError("written differently: \(written.prefix(200)) against jansson's \(reference.prefix(200))") }
        }
    }
}

@main struct FuzzMain {
    static func main() { FuzzEntry.run(fuzzJSON) }
}
