import FlowHostCore
import FlowHostVocabulary
import FlowJSON
import Testing

@Suite struct EngineFlowTests {
    @Test func initializeListsFlowsThenStartEventsFollowTheResponse() {
        let h = Harness(ProbeFlow.self)
        let lines = h.send(Harness.initializeLine)
        #expect(lines.count == 2)
        let response = try! JSON.parse(lines[0])
        #expect(response["id"]?.intValue == 0)
        #expect(response["result"]?["device"]?["deviceID"]?.stringValue == "dev-1")
        let flow = response["result"]?["flows"]?[0]
        #expect(flow?["name"]?.stringValue == "probe")
        #expect(flow?["version"]?.stringValue == "1.2.3")
        #expect(flow?["abiVersion"]?.intValue == 1)
        #expect(flow?["events"]?.count == 3)
        #expect(lines[1] == #"{"jsonrpc":"2.0","method":"onProbe","params":{"text":"started"}}"#)
    }

    @Test func responseIsWrittenBeforeTheEventsItCauses() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let lines = h.send(request(1, "probe.emit", #"{"text":"a"}"#))
        #expect(
            lines == [
                #"{"jsonrpc":"2.0","id":1,"result":{"emitted":true}}"#,
                #"{"jsonrpc":"2.0","method":"onProbe","params":{"text":"a"}}"#,
            ])
    }

    @Test func batchRepliesComeAsOneArrayBeforeItsEvents() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let lines = h.send(
            "[" + request(1, "probe.emit", #"{"text":"a"}"#) + ","
                + #"{"jsonrpc":"2.0","method":"probe.emit","params":{"text":"b"}}"# + "," + request(2, "nope") + "]")
        #expect(lines.count == 3)
        let batch = try! JSON.parse(lines[0])
        #expect(batch.count == 2)
        #expect(batch[0]?["id"]?.intValue == 1)
        #expect(batch[1]?["error"]?["code"]?.intValue == -32601)
        #expect(lines[1].contains(#""text":"a""#) && lines[2].contains(#""text":"b""#))
    }

    @Test func batchOfNotificationsGetsNoReply() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let lines = h.send(#"[{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","method":"nope"}]"#)
        #expect(lines.isEmpty)
    }

    @Test func emptyBatchIsOneInvalidRequest() {
        let h = Harness(ProbeFlow.self)
        let reply = h.exchange("[]")
        #expect(reply.count == 1)
        #expect(reply[0]["error"]?["code"]?.intValue == -32600)
    }

    @Test func answerWithoutOpenChallengeIsRefused() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let reply = h.exchange(request(1, "setSecret", #"{"secret":"right"}"#))
        #expect(reply[0]["error"]?["code"]?.intValue == -32003)
    }

    @Test func answersAreRoutedAndCloseTheChallenge() {
        let h = Harness(ProbeFlow.self, TwinFlow.self)
        #expect(h.engine.plugins.map(\.name) == ["probe", "twin"], "a shared answer method is not a conflict")
        h.initialize()
        var reply = h.exchange(request(1, "probe.challenge", #"{"challengeMode":3}"#))
        #expect(reply[1]["method"]?.stringValue == "getSecret")

        // Wrong challengeMode: refused, the challenge stays open.
        reply = h.exchange(request(2, "setSecret", #"{"secret":"right","challengeMode":0}"#))
        #expect(reply[0]["error"]?["code"]?.intValue == -32004)
        #expect(reply[0]["error"]?["data"]?["open"]?["challengeMode"]?.intValue == 3)

        // A sync refusal by the flow also leaves it open.
        reply = h.exchange(request(3, "setSecret", #"["", 3]"#))
        #expect(reply[0]["error"]?["code"]?.intValue == 4)

        // A wrong answer re-opens it (the flow emits getSecret again).
        reply = h.exchange(request(4, "setSecret", #"["wrong", 3]"#))
        #expect(reply[1]["params"]?["status"]?.intValue == 102)

        reply = h.exchange(request(5, "setSecret", #"{"secret":"right","challengeMode":3}"#))
        #expect(reply[0]["result"]?.isNull == true)
        #expect(reply[1]["params"]?["text"]?.stringValue == "unlocked")

        // Closed now.
        reply = h.exchange(request(6, "setSecret", #"{"secret":"right"}"#))
        #expect(reply[0]["error"]?["code"]?.intValue == -32003)
    }

    @Test func hostRequestIsSentAfterTheResponseAndItsAnswerRoutedBack() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let lines = h.send(request(1, "probe.ask", #"{"method":"platform/authenticateLDA"}"#))
        #expect(lines.count == 2)
        #expect(lines[0] == #"{"jsonrpc":"2.0","id":1,"result":null}"#)
        let hostRequest = try! JSON.parse(lines[1])
        #expect(hostRequest["method"]?.stringValue == "platform/authenticateLDA")
        let id = hostRequest["id"]!.stringValue!
        let answer = h.send(#"{"jsonrpc":"2.0","id":"\#(id)","result":{"authenticated":true}}"#)
        #expect(answer == [#"{"jsonrpc":"2.0","method":"onAnswer","params":{"result":{"authenticated":true}}}"#])
        // A second answer to the same id is ignored.
        #expect(h.send(#"{"jsonrpc":"2.0","id":"\#(id)","result":{}}"#).isEmpty)
    }

    @Test func clientErrorIsRoutedBack() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let lines = h.send(request(1, "probe.ask", #"{"method":"platform/authenticateLDA"}"#))
        let id = try! JSON.parse(lines[1])["id"]!.stringValue!
        let answer = h.exchange(#"{"jsonrpc":"2.0","id":"\#(id)","error":{"code":-1,"message":"cancelled"}}"#)
        #expect(answer[0]["params"]?["error"]?.intValue == -1)
    }

    @Test func hostRequestTimesOut() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        h.send(request(1, "probe.ask", #"{"method":"platform/authenticateLDA","timeoutMs":50}"#))
        let deadline = h.engine.nextDeadline!
        h.engine.fireTimers(now: deadline - 1)
        try! h.engine.flush()
        #expect(h.sink.lines.count == 2, "nothing fired early")
        h.sink.reset()
        h.engine.fireTimers(now: deadline)
        try! h.engine.flush()
        // The client is told the host gave up, then the flow hears the timeout.
        #expect(
            h.sink.lines == [
                #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"fh-1"}}"#,
                #"{"jsonrpc":"2.0","method":"onAnswer","params":{"error":-32000}}"#,
            ])
        #expect(h.engine.nextDeadline == nil)
    }

    @Test func servicesOfferedByAFlow() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        var reply = h.exchange(request(1, "probe.call", #"{"service":"probe.double","params":{"n":21}}"#))
        #expect(reply[0]["result"]?["n"]?.intValue == 42)
        reply = h.exchange(request(2, "probe.call", #"{"service":"probe.double","params":{}}"#))
        #expect(reply[0]["error"]?["data"]?["field"]?.stringValue == "n")
        reply = h.exchange(request(3, "probe.call", #"{"service":"no.such"}"#))
        #expect(reply[0]["error"]?["code"]?.intValue == -32601)
    }

    @Test func servicesOfferedByTheHost() {
        let h = Harness(ProbeFlow.self)
        h.engine.registerService("host.answer") { caller, _ throws(FlowHostError) in ["answer": 42, "caller": .string(caller)] }
        h.engine.registerService("host.secret") { _, _ throws(FlowHostError) in ["secret": true] }
        h.initialize()
        var reply = h.exchange(request(1, "probe.call", #"{"service":"host.answer"}"#))
        #expect(reply[0]["result"]?["answer"]?.intValue == 42)
        #expect(reply[0]["result"]?["caller"]?.stringValue == "probe")
        // Not in the flow's "uses": refused before anything runs.
        reply = h.exchange(request(2, "probe.call", #"{"service":"host.secret"}"#))
        #expect(reply[0]["error"]?["code"]?.intValue == -32601)
        #expect(reply[0]["error"]?["data"]?["reason"]?.stringValue == "undeclared")
    }

    @Test func conflictingAndFailingPluginsAreRefusedOthersLoad() {
        let h = Harness(
            ProbeFlow.self, ImpostorFlow.self, MethodThiefFlow.self, TwinFlow.self,
            configure: { $0 == "twin" ? ["refuse": true] : .object() })
        #expect(h.engine.plugins.map(\.name) == ["probe", "twin"])
        let reasons = h.engine.refusals.map(\.reason)
        #expect(reasons.count == 2)
        #expect(reasons[0].contains("flow name probe is already taken"))
        #expect(reasons[1].contains("method probe.emit is already taken"))

        let refusing = Harness(ProbeFlow.self, configure: { _ in ["refuse": true] })
        #expect(refusing.engine.plugins.isEmpty)
        #expect(refusing.engine.refusals[0].reason == "create failed: refused by config")
    }
}

