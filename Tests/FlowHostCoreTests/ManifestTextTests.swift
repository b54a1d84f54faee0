@testable import FlowHostCore
@testable import FlowHostSDK
import FlowJSON
import Testing

/// The SDK writes a flow's manifest as text, without a JSON tree; the host's
/// loader must read back exactly what was declared.
@Suite struct ManifestTextTests {
    private static let awkward = "quote \" backslash \\ newline \n tab \t bell \u{07} unit-separator \u{1F} é 🔑 /"

    private func declaration(resultSchema: String? = #"{"type": "object",  "properties": {"b": {}, "a": {}}}"#) -> FlowDeclaration {
        FlowDeclaration(
            name: "sample", version: "1.0.0",
            methods: [
                FlowMethod(
                    "begin", summary: Self.awkward,
                    params: [
                        FlowParam("userID", .string, description: Self.awkward),
                        FlowParam("code", .string, required: false, format: .userID),
                        FlowParam("level", .integer),
                    ],
                    resultSchema: resultSchema, startsDialogue: true),
                FlowMethod("answer", params: [FlowParam("value", .any)], answers: ["getThing"]),
            ],
            events: [
                FlowEvent("getThing", summary: "asks", paramsSchema: #"{"type":"object"}"#, challenge: true, resting: true),
                FlowEvent("onDone"),
            ],
            services: [FlowService("sample.lookup", summary: "s", params: [FlowParam("key", .string)]), FlowService("sample.free")],
            uses: ["audit.record", "sample.lookup"], reads: ["sessions.ended"])
    }

    @Test func theLoaderReadsBackEverythingDeclaredEscapesIncluded() throws {
        let text = declaration().manifestText()
        let manifest = try PluginManifest.parse(text)
        #expect(manifest.methods.map(\.name) == ["begin", "answer"])
        let begin = manifest.methods[0]
        #expect(begin.summary == Self.awkward)
        #expect(begin.startsDialogue)
        #expect(begin.answers.isEmpty)
        #expect(
            begin.params == [
                ParamSpec(name: "userID", type: .string, description: Self.awkward),
                ParamSpec(name: "code", type: .string, required: false, format: .userID),
                ParamSpec(name: "level", type: .integer),
            ])
        // The schema is copied as written: its keys keep their order.
        #expect(begin.result?.serialized() == #"{"type":"object","properties":{"b":{},"a":{}}}"#)
        #expect(manifest.methods[1].answers == ["getThing"])
        #expect(manifest.methods[1].params == [ParamSpec(name: "value", type: .any)])
        #expect(manifest.events.map(\.name) == ["getThing", "onDone"])
        #expect(manifest.events[0].isChallenge && manifest.events[0].isResting)
        #expect(manifest.events[0].params?.serialized() == #"{"type":"object"}"#)
        #expect(!manifest.events[1].isChallenge && manifest.events[1].params == nil)
        #expect(manifest.services.map(\.name) == ["sample.lookup", "sample.free"])
        #expect(manifest.services[0].params == [ParamSpec(name: "key", type: .string)])
        #expect(manifest.services[1].params == nil)
        #expect(manifest.uses == ["audit.record", "sample.lookup"])
        #expect(manifest.reads == ["sessions.ended"])
        // Control characters are escaped, never written raw.
        #expect(!text.utf8.contains { $0 < 0x20 })
        #expect(text.contains(#"\u0007"#) && text.contains(#"\u001f"#) && text.contains(#"\n"#))
    }

    @Test func aSchemaThatIsNotJSONIsRefusedAtLoadNamingWhere() {
        let text = declaration(resultSchema: #"{"type": "object", "properties": {"a": }}"#).manifestText()
        do {
            _ = try PluginManifest.parse(text)
            Issue.record("a manifest with a broken schema was accepted")
        } catch {
            #expect(error.description.hasPrefix("manifest is not JSON: "))
            #expect(error.description.contains(#"near "#))
            #expect(error.description.contains(#""properties": {"a": "#))
        }
    }

    @Test func aSchemaWithADuplicateKeyIsRefused() {
        let text = declaration(resultSchema: #"{"type": "object", "type": "array"}"#).manifestText()
        #expect(throws: PluginManifest.Invalid.self) { try PluginManifest.parse(text) }
    }
}
