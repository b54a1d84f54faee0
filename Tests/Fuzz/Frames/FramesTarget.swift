import FlowJSON
import FuzzSupport
import JSONRPC

/// The wire's first line of defence, fuzzed: any bytes, split into frames
/// (with a small frame limit, so oversized lines happen), each frame checked
/// for nesting, parsed, and classified as the engine does. Nothing here may
/// crash, whatever comes in.
func fuzzFrames(_ input: UnsafeRawBufferPointer) {
    var framer = LineFramer(maxFrameBytes: 4096)
    // Two chunks, split where the first byte says, so held-over lines are fuzzed too.
    let split = input.isEmpty ? 0 : Int(input[0]) % (input.count + 1)
    for chunk in [UnsafeRawBufferPointer(rebasing: input[0..<split]), UnsafeRawBufferPointer(rebasing: input[split...])] {
        framer.push(chunk, handle)
    }
    framer.finish(handle)
}

private func handle(_ frame: LineFramer.Frame) {
    guard case .line(let bytes) = frame, !NestingDepth.exceeds(bytes, limit: 64) else { return }
    guard let value = try? JSON.parse(bytes) else { return }
    let messages = value.kind == .array ? value.elements : [value]
    for message in messages {
        if case .invalid = IncomingMessage.classify(message) { continue }
        _ = message.serialized()
    }
}

@main struct FuzzMain {
    static func main() { FuzzEntry.run(fuzzFrames) }
}
