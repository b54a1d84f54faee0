import FlowJSON
import Testing

@Suite struct EngineErrorTests {
    @Test func parseErrorHasNullID() {
        let h = Harness(ProbeFlow.self)
        let reply = h.exchange(#"{"jsonrpc":"2.0","id":1,"method""#)
        #expect(reply.count == 1)
        #expect(reply[0]["error"]?["code"]?.intValue == -32700)
        #expect(reply[0]["id"]?.isNull == true)
    }

    @Test func requestBeforeInitializeIsRefused() {
        let h = Harness(ProbeFlow.self)
        let reply = h.exchange(request(1, "probe.emit", #"{"text":"x"}"#))
        #expect(reply[0]["error"]?["code"]?.intValue == -32002)
        #expect(reply[0]["id"]?.intValue == 1)
    }

    @Test func discoverWorksBeforeInitialize() {
        let h = Harness(ProbeFlow.self)
        let reply = h.exchange(request(1, "rpc.discover"))
        #expect(reply[0]["result"]?["openrpc"]?.stringValue == "1.3.2")
        let names = reply[0]["result"]?["methods"]?.elements.compactMap { $0["name"]?.stringValue } ?? []
        #expect(names.contains("probe.emit") && names.contains("initialize") && names.contains("setSecret"))
        let events = reply[0]["result"]?["x-flowhost-events"]?.elements ?? []
        #expect(events.filter { $0["flow"]?.stringValue == "probe" }.compactMap { $0["name"]?.stringValue } == ["onProbe", "onAnswer", "getSecret"])
        #expect(
            events.filter { $0["flow"]?.stringValue == "host" }.compactMap { $0["name"]?.stringValue }
                == ["$/cancelRequest"], "the session's SDK events are the mfa flow's")
    }

    @Test func methodNotFound() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let reply = h.exchange(request(2, "nope"))
        #expect(reply[0]["error"]?["code"]?.intValue == -32601)
        #expect(reply[0]["error"]?["data"]?["method"]?.stringValue == "nope")
    }

    @Test(arguments: [
        (#"{}"#, "text", "required"),
        (#"{"text":1}"#, "text", "expected string, got integer"),
        (#"{"text":"a","more":1}"#, "more", "unknown parameter"),
        (#"["a","b"]"#, "params", "at most 1 positional parameters"),
        (#"[]"#, "text", "required"),
    ])
    func invalidParamsNameTheField(params: String, field: String, reason: String) {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let reply = h.exchange(request(3, "probe.emit", params))
        #expect(reply.count == 1)
        #expect(reply[0]["error"]?["code"]?.intValue == -32602)
        #expect(reply[0]["error"]?["data"]?["field"]?.stringValue == field)
        #expect(reply[0]["error"]?["data"]?["reason"]?.stringValue == reason)
    }

    @Test func positionalParamsAreMappedToNames() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let reply = h.exchange(request(4, "probe.emit", #"["hi"]"#))
        #expect(reply[0]["result"]?["emitted"]?.boolValue == true)
        #expect(reply[1]["params"]?["text"]?.stringValue == "hi")
    }

    @Test func sdkRefusalCarriesLongAndShortCodes() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let reply = h.exchange(request(5, "probe.fail", #"{"code":131}"#))
        let error = reply[0]["error"]
        #expect(error?["code"]?.intValue == 131)
        #expect(error?["message"]?.stringValue == "failed on purpose")
        #expect(error?["data"]?["longErrorCode"]?.intValue == 131)
        #expect(error?["data"]?["shortErrorCode"]?.intValue == 7)
    }

    @Test func flowFailureWithoutCodeIsInternalError() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let reply = h.exchange(request(6, "probe.fail", #"{"code":0}"#))
        #expect(reply[0]["error"]?["code"]?.intValue == -32603)
    }

    @Test func secondInitializeIsTheSDKsAlreadyInitialized() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        let reply = h.exchange(Harness.initializeLine)
        #expect(reply[0]["error"]?["code"]?.intValue == 88)
    }

    @Test func unsupportedProtocolVersionListsTheSupportedOnes() {
        let h = Harness(ProbeFlow.self)
        let reply = h.exchange(
            request(1, "initialize", #"{"protocolVersion":"9.9","clientInfo":{"name":"a","version":"1"},"device":{}}"#))
        #expect(reply[0]["error"]?["code"]?.intValue == -32602)
        #expect(reply[0]["error"]?["data"]?["supported"]?.elements.first?.stringValue == "1.1")
    }

    @Test func badDeviceFieldIsNamed() {
        let h = Harness(ProbeFlow.self)
        let reply = h.exchange(
            request(1, "initialize", #"{"protocolVersion":"1.1","clientInfo":{"name":"a","version":"1"},"device":{"ldaCapabilities":[1,"x"]}}"#))
        #expect(reply[0]["error"]?["data"]?["field"]?.stringValue == "device.ldaCapabilities[1]")
    }

    @Test func notificationsAreNeverAnswered() {
        let h = Harness(ProbeFlow.self)
        #expect(h.send(#"{"jsonrpc":"2.0","method":"probe.emit"}"#).isEmpty, "before initialize")
        h.initialize()
        #expect(h.send(#"{"jsonrpc":"2.0","method":"nope"}"#).isEmpty)
        #expect(h.send(#"{"jsonrpc":"2.0","method":"probe.emit","params":{"bad":1}}"#).isEmpty)
        #expect(h.send(#"{"jsonrpc":"2.0","method":"probe.fail","params":{"code":5}}"#).isEmpty)
        // A valid notification still runs, and its events are sent.
        let lines = h.send(#"{"jsonrpc":"2.0","method":"probe.emit","params":{"text":"n"}}"#)
        #expect(lines == [#"{"jsonrpc":"2.0","method":"onProbe","params":{"text":"n"}}"#])
    }

    @Test func shutdownThenExit() {
        let h = Harness(ProbeFlow.self)
        h.initialize()
        #expect(h.exchange(request(9, "shutdown"))[0]["result"]?.isNull == true)
        #expect(h.exchange(request(10, "probe.emit", #"{"text":"x"}"#))[0]["error"]?["code"]?.intValue == -32005)
        #expect(h.engine.exitStatus == nil)
        #expect(h.send(#"{"jsonrpc":"2.0","method":"exit"}"#).isEmpty)
        #expect(h.engine.exitStatus == 0)
    }

    @Test func exitWithoutShutdownIsStatusOne() {
        let h = Harness(ProbeFlow.self)
        h.send(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(h.engine.exitStatus == 1)
    }

    @Test func tooDeepIsRefusedAndTheNextRequestWorks() {
        var options = HostEngineOptionsForTests.shallow
        options.maxNestingDepth = 4
        let h = Harness(ProbeFlow.self, options: options)
        h.initialize()
        let reply = h.exchange(#"{"a":[[[[1]]]]}"#, request(1, "ping"))
        #expect(reply[0]["error"]?["code"]?.intValue == -32600)
        #expect(reply[1]["result"]?.kind == .object)
    }

    @Test func oversizedFrameIsRefusedAndTheNextRequestWorks() {
        var options = HostEngineOptionsForTests.shallow
        options.maxFrameBytes = 100
        let h = Harness(ProbeFlow.self, options: options)
        h.initialize()
        let big = #"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""# + String(repeating: "x", count: 200) + #""}}"#
        let reply = h.exchange(big, request(2, "ping"))
        #expect(reply[0]["error"]?["code"]?.intValue == -32600)
        #expect(reply[0]["error"]?["data"]?["size"]?.intValue == big.utf8.count)
        #expect(reply[1]["id"]?.intValue == 2)
    }
}

import FlowHostCore
enum HostEngineOptionsForTests {
    static var shallow: HostEngine.Options { HostEngine.Options() }
}
