@testable import FlowHostCore
import FlowHostVocabulary
import FlowJSON
import Testing

@Suite struct IncomingFrameTests {
    private func frame(_ text: String, depth: Int = 8) -> IncomingFrame {
        Array(text.utf8).withUnsafeBytes { IncomingFrame($0, maxNestingDepth: depth) }
    }

    @Test func aMessageABatchAndWhatIsRefusedWhole() {
        guard case .message(let message) = frame(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#) else { Issue.record("one message"); return }
        #expect(message["method"]?.stringValue == "ping")
        guard case .batch(let batch) = frame(#"[{"a":1},{"b":2}]"#) else { Issue.record("a batch"); return }
        #expect(batch.count == 2)
        guard case .refused(let empty) = frame("[]") else { Issue.record("an empty batch"); return }
        #expect(empty.code == .invalidRequest && empty.message.contains("empty batch"))
        guard case .refused(let deep) = frame("[[[[1]]]]", depth: 3) else { Issue.record("too deep"); return }
        #expect(deep.code == .invalidRequest && deep.data?["limit"]?.intValue == 3)
    }

    /// A parse error says where, never what: the text near the fault may be a secret.
    @Test func aParseErrorNamesThePlaceNotTheText() {
        guard case .refused(let error) = frame(#"{"password":"Hunter2\q"}"#) else { Issue.record("not JSON"); return }
        #expect(error.code == .parseError)
        let detail = error.data?["detail"]?.stringValue ?? ""
        #expect(detail.contains("line 1") && !detail.contains("Hunter2"))
        #expect(IncomingFrame.oversized(70_000, limit: 65_536).data?["size"]?.intValue == 70_000)
    }
}
