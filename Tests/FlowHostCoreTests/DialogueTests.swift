import FlowHostSDK
import FlowJSON
@testable import FlowHostCore
import Testing

/// A flow whose dialogue asks the client something and sets a timer, all
/// through the SDK's `Dialogue` handle, and says what reaches it.
final class DialogueFlow: Flow {
    static let declaration = FlowDeclaration(
        name: "dlg", version: "1",
        methods: [FlowMethod("dlg.start"), FlowMethod("dlg.restart"), FlowMethod("dlg.end")],
        events: [FlowEvent("onHeard")])

    let host: FlowHost
    var dialogue: Dialogue

    init(host: FlowHost, config: JSON) throws(FlowHostError) {
        self.host = host
        dialogue = host.beginDialogue()
    }

    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? {
        switch method {
        case "dlg.start":
            dialogue.request("platform/ask", .object()) { [host] outcome in
                host.emit("onHeard", ["what": .string(outcome.isSuccess ? "answer" : "error")])
            }
            dialogue.setTimer(milliseconds: 100) { [host] in host.emit("onHeard", ["what": "timer"]) }
        case "dlg.restart":
            dialogue.end(abandoning: true)
            dialogue = host.beginDialogue()
        case "dlg.end":
            dialogue.end()
        default:
            throw FlowHostError.methodNotFound
        }
        return nil
    }
}

private extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}

/// The SDK's `Dialogue`: what a dialogue started reports only while it is
/// open; ending it stops its timers, and abandoning it cancels its requests.
@Suite struct DialogueTests {
    let clock = ManualClock()
    let h: Harness

    init() {
        h = Harness(DialogueFlow.self, clock: clock)
        h.initialize()
    }

    func heard(_ frames: [JSON]) -> [String] {
        frames.filter { $0["method"]?.stringValue == "onHeard" }.compactMap { $0["params"]?["what"]?.stringValue }
    }

    /// Starts the dialogue; returns the id of the host's request to the client.
    func start() throws -> String {
        let frames = h.exchange(request(1, "dlg.start"))
        return try #require(frames.first { $0["method"]?.stringValue == "platform/ask" }?["id"]?.stringValue)
    }

    func advance(_ milliseconds: UInt64) -> [JSON] {
        h.sink.reset()
        clock.advance(milliseconds: milliseconds)
        h.engine.fireTimers()
        try! h.engine.flush()
        return h.sink.lines.map { try! JSON.parse($0) }
    }

    @Test func anOpenDialogueHearsItsAnswersAndItsTimer() throws {
        let id = try start()
        #expect(heard(h.exchange(#"{"jsonrpc":"2.0","id":"\#(id)","result":{}}"#)) == ["answer"])
        #expect(heard(advance(100)) == ["timer"])
    }

    @Test func anAbandonedDialogueCancelsItsRequestAndHearsNothingMore() throws {
        let id = try start()
        let frames = h.exchange(request(2, "dlg.restart"))
        #expect(frames.contains { $0["method"]?.stringValue == "$/cancelRequest" && $0["params"]?["id"]?.stringValue == id })
        #expect(heard(frames).isEmpty, "the cancellation reached no one")
        #expect(heard(advance(1000)).isEmpty, "its timer stopped")
    }

    @Test func anEndedDialogueDropsALateAnswer() throws {
        let id = try start()
        #expect(heard(h.exchange(request(2, "dlg.end"))).isEmpty)
        #expect(heard(h.exchange(#"{"jsonrpc":"2.0","id":"\#(id)","result":{}}"#)).isEmpty, "the late answer was dropped")
        #expect(heard(advance(1000)).isEmpty)
    }
}
