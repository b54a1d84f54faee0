import FlowHostVocabulary
import FlowJSON
@testable import FlowHostCore
import JSONRPC
import Testing

/// The service router alone: calls, what they start, and each caller's one callback.
@Suite struct ServiceRouterTests {
    final class Heard { var results: [Result<JSON?, FlowHostError>] = []; var answers: [Result<JSON, FlowHostError>] = [] }

    let h: Harness
    var probe: LoadedPlugin { h.engine.plugins[0] }
    var twin: LoadedPlugin { h.engine.plugins[1] }

    init() {
        h = Harness(ProbeFlow.self, TwinFlow.self)
        h.initialize()
    }

    @Test func aCancelledChainTellsEachCallerOnceAndEndsWhatItStarted() {
        let router = h.engine.router
        let heard = Heard()
        let root = router.startCall("twin.x", caller: probe, provider: twin, synchronous: true) { heard.results.append($0) }
        var child: UInt64 = 0
        router.withCall(root) {
            child = router.startCall("probe.y", caller: twin, provider: probe, synchronous: true) { heard.results.append($0) }
            router.withCall(child) {
                #expect(router.sendClientRequest(method: "platform/ask", params: .object(), timeoutMilliseconds: 0, from: probe) {
                    heard.answers.append($0)
                })
            }
        }
        h.sink.reset()
        router.cancel(router.calls[root]!, notifyCaller: true)
        try! h.engine.flush()
        let codes = heard.results.map { result -> ErrorCode? in
            guard case .failure(let error) = result else { return nil }
            return error.code
        }
        #expect(codes == [.requestCancelled, .requestCancelled], "child, then root: each once, cancelled")
        #expect(heard.answers.count == 1, "the child's host request ended with it")
        #expect(h.sink.lines.contains { $0.contains("$/cancelRequest") }, "and the client was told")
        #expect(!router.completeCall(child, .success(nil)), "a late completion is dropped")
        #expect(router.calls.isEmpty)
    }

    @Test func aProviderCannotCompleteACallItDoesNotServe() {
        let router = h.engine.router
        let heard = Heard()
        let id = router.startCall("twin.x", caller: probe, provider: twin, synchronous: true) { heard.results.append($0) }
        #expect(!router.completeCall(id, .success(nil), by: probe))
        #expect(router.completeCall(id, .success(["ok": true]), by: twin))
        #expect(heard.results.count == 1)
    }
}
