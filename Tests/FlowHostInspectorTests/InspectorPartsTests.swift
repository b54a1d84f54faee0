import Testing

@testable import flowhost_inspector

/// The inspector's command line, its token and the page's messages; the
/// server and the page themselves are tested from outside (Tests/Inspector).
@Suite struct InspectorPartsTests {
    @Test func theInspectorsOwnOptionsComeFirstAndTheRestAreServeOptions() throws {
        let parsed = try InspectorArguments.parse(["--port", "8123", "--flowhost", "/x/flowhost", "--", "--store", "s.sqlite", "--port", "1"])
        #expect(parsed.port == 8123 && parsed.flowhost == "/x/flowhost")
        #expect(parsed.serveOptions == ["--store", "s.sqlite", "--port", "1"], "after --, everything is the host's")
        #expect(try InspectorArguments.parse(["--store", "s"]) == InspectorArguments(port: 0, flowhost: nil, serveOptions: ["--store", "s"]))
    }

    @Test(arguments: [["--port"], ["--port", "65536"], ["--port", "-1"], ["--port", "web"], ["--flowhost"]])
    func aBadInspectorOptionIsAUsageError(_ arguments: [String]) {
        #expect(throws: InspectorError.self) { try InspectorArguments.parse(arguments) }
        do { _ = try InspectorArguments.parse(arguments) } catch { #expect(error.kind == .usage) }
    }

    @Test func theTokenIsLongRandomAndComparedWhole() {
        let token = AccessToken(), other = AccessToken()
        #expect(token.value.count == 64 && token.value.allSatisfy { $0.isHexDigit })
        #expect(token.value != other.value)
        #expect(token.admits(token.value))
        #expect(!token.admits(nil) && !token.admits("") && !token.admits(other.value))
        #expect(!token.admits(String(token.value.dropLast())) && !token.admits(token.value + "0"))
        #expect(!token.admits(token.value.uppercased()) || token.value.uppercased() == token.value)
    }

    @Test func aFrameFromThePageIsOneLine() {
        #expect(PageMessage.frameLine(#"{"kind":"frame","line":"{\"id\":1}"}"#) == #"{"id":1}"#)
        #expect(PageMessage.frameLine(#"{"kind":"frame","line":"a\nb"}"#) == nil)
        #expect(PageMessage.frameLine(#"{"kind":"frame","line":"a\rb"}"#) == nil)
        #expect(PageMessage.frameLine(#"{"kind":"log","line":"x"}"#) == nil)
        #expect(PageMessage.frameLine(#"{"kind":"frame","line":3}"#) == nil)
        #expect(PageMessage.frameLine("not json") == nil)
    }

    @Test func whatThePageReceivesIsJSONItCanRead() {
        #expect(PageMessage.exit(status: 3, signalled: false) == #"{"kind":"exit","signalled":false,"status":3}"#)
        #expect(PageMessage.frame(#"{"a":"\u2028"}"#).hasPrefix(#"{"kind":"frame","line":"#))
    }
}
