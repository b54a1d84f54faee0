import FlowJSON
import JSONRPC
import Testing

@Suite struct MessageTests {
    private func classify(_ text: String) throws -> IncomingMessage {
        IncomingMessage.classify(try JSON.parse(text))
    }

    @Test func request() throws {
        guard case .request(let id, let method, let params) = try classify(#"{"jsonrpc":"2.0","id":"a","method":"m","params":[1]}"#)
        else { Issue.record("not a request"); return }
        #expect(id.stringValue == "a")
        #expect(method == "m")
        #expect(params?.count == 1)
    }

    @Test func notificationHasNoID() throws {
        guard case .notification(let method, nil) = try classify(#"{"jsonrpc":"2.0","method":"m"}"#) else {
            Issue.record("not a notification"); return
        }
        #expect(method == "m")
    }

    @Test func nullIDIsARequest() throws {
        guard case .request(let id, _, _) = try classify(#"{"jsonrpc":"2.0","id":null,"method":"m"}"#) else {
            Issue.record("not a request"); return
        }
        #expect(id.isNull)
    }

    @Test func response() throws {
        guard case .response(let id, let result, nil) = try classify(#"{"jsonrpc":"2.0","id":"fh-1","result":{"ok":true}}"#) else {
            Issue.record("not a response"); return
        }
        #expect(id.stringValue == "fh-1")
        #expect(result?["ok"]?.boolValue == true)
    }

    @Test(arguments: [
        (#"{"jsonrpc":"1.0","id":1,"method":"m"}"#, "1"),
        (#"{"id":1,"method":"m"}"#, "1"),
        (#"{"jsonrpc":"2.0","id":{},"method":"m"}"#, "null"),
        (#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#, "null"),
        (#"{"jsonrpc":"2.0","id":true,"method":"m"}"#, "null"),
        (#"{"jsonrpc":"2.0","id":7,"method":5}"#, "7"),
        (#"{"jsonrpc":"2.0","id":7,"method":"m","params":"x"}"#, "7"),
        (#"{"jsonrpc":"2.0","id":7,"method":"m","extra":1}"#, "7"),
        (#"{"jsonrpc":"2.0","id":7}"#, "7"),
        (#"{"jsonrpc":"2.0","id":7,"result":1,"error":{}}"#, "7"),
        ("42", "null"),
        (#""text""#, "null"),
    ])
    func invalid(text: String, expectedID: String) throws {
        guard case .invalid(let id, let error) = try classify(text) else {
            Issue.record("accepted \(text)"); return
        }
        #expect(error.code.rawValue == -32600)
        #expect(id.serialized() == expectedID)
    }
}

@Suite struct FrameWriterTests {
    @Test func exactBytes() throws {
        let sink = MemorySink()
        let writer = FrameWriter(sink: sink)
        try writer.writeResult(id: 1, result: ["a": "b"])
        try writer.writeResult(id: "x", result: nil)
        try writer.writeError(id: .null, error: .parseError)
        try writer.writeNotification(method: "onEcho", params: ["text": "é\n"])
        try writer.writeRequest(id: "fh-1", method: "platform/authenticateLDA", params: [:])
        try writer.writeBatch([.result(id: 2, result: 3), .error(id: 4, error: .methodNotFound)])
        #expect(sink.bytes.isEmpty, "nothing is written before flush")
        try writer.flush()
        #expect(
            String(decoding: sink.bytes, as: UTF8.self) == """
                {"jsonrpc":"2.0","id":1,"result":{"a":"b"}}
                {"jsonrpc":"2.0","id":"x","result":null}
                {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}
                {"jsonrpc":"2.0","method":"onEcho","params":{"text":"é\\n"}}
                {"jsonrpc":"2.0","id":"fh-1","method":"platform/authenticateLDA","params":{}}
                [{"jsonrpc":"2.0","id":2,"result":3},{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}]

                """)
    }

    @Test func nulInAStringIsRefused() {
        // A NUL would cut a C string short downstream (user ids, codes).
        #expect(throws: JSONParseError.self) { try JSON.parse(#"{"a":"x\u0000y"}"#) }
    }

    @Test func idsAreEchoedExactly() throws {
        for text in ["0", "-17", "9007199254740993", "\"\"", "\"ü x/\"", "null", "1.5", "-0.25"] {
            let sink = MemorySink()
            let writer = FrameWriter(sink: sink)
            try writer.writeResult(id: try JSON.parse(text), result: nil)
            try writer.flush()
            #expect(String(decoding: sink.bytes, as: UTF8.self) == "{\"jsonrpc\":\"2.0\",\"id\":\(text),\"result\":null}\n")
        }
    }
}
