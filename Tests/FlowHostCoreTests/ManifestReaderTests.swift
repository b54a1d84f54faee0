@testable import FlowHostCore
@testable import FlowHostSDK
import FlowJSON
import Testing

/// `ManifestReader` reads plain manifests in one pass and gives up on the
/// rest: what it accepts, the tree reading must accept and read the same;
/// what the tree reading refuses, it must never accept.
@Suite struct ManifestReaderTests {
    /// A manifest with every key at every level, as the SDK writes it.
    static let everyKey = FlowDeclaration(
        name: "sample", version: "1.0.0",
        methods: [
            FlowMethod(
                "begin", summary: "Starts it (\"quoted\", back\\slash, é, 🔑, a/b).",
                params: [
                    FlowParam("userID", .string, description: "who"),
                    FlowParam("code", .string, required: false, format: .userID),
                    FlowParam("level", .integer),
                ],
                resultSchema: #"{"type": "object",  "properties": {"b": {"type": ["string", "null"]}, "a": {"minimum": -1.5e3}}}"#,
                startsDialogue: true),
            FlowMethod("answer", params: [FlowParam("value", .any)], answers: ["getThing"]),
        ],
        events: [
            FlowEvent("getThing", summary: "asks", paramsSchema: #"{"type":"object","required":["a"]}"#, challenge: true, resting: true),
            FlowEvent("onDone", paramsSchema: "true"),
        ],
        services: [FlowService("sample.lookup", summary: "s", params: [FlowParam("key", .string)]), FlowService("sample.free")],
        uses: ["audit.record", "sample.lookup"], reads: ["sessions.ended", "notifications.created"]
    ).manifestText()

    /// The same manifest laid out by hand: whitespace everywhere JSON allows
    /// it, keys in another order, the one-letter escapes.
    static let spaced = """
        \r\n { "uses" : [ "audit.record" ] ,
          "methods": [ { "answers": "getThing", "name" : "answer\\t\\/x", "params": [
             { "type": "string", "name": "v", "format": "deviceName", "required": false, "description": "a\\nb\\"c\\\\" } ] },
           {"result": null, "name": "plain", "startsDialogue": false, "summary": "\\b\\f\\r"} ],
          "events" : [ {"challenge" : true, "name":"getThing", "params": [ 1, -0.5, "x", {"k": [true, false, null]} ] } ],
          "services": [ ], "reads": [] }\t
        """

    private func describe(_ manifest: PluginManifest) -> String {
        func params(_ list: [ParamSpec]?) -> String {
            guard let list else { return "nil" }
            return list.map { "\($0.name)|\($0.type)|\($0.required)|\($0.description)|\(String(describing: $0.format))" }.joined(separator: ";")
        }
        var lines: [String] = []
        for m in manifest.methods {
            lines.append(
                "method \(m.name)|\(m.summary)|\(params(m.params))|\(m.result?.serialized() ?? "-")|\(m.answers)|\(m.startsDialogue)")
        }
        for e in manifest.events {
            lines.append("event \(e.name)|\(e.summary)|\(e.params?.serialized() ?? "-")|\(e.isChallenge)|\(e.isResting)")
        }
        for s in manifest.services { lines.append("service \(s.name)|\(s.summary)|\(params(s.params))") }
        lines.append("uses \(manifest.uses.sorted())")
        lines.append("reads \(manifest.reads.sorted())")
        return lines.joined(separator: "\n")
    }

    private func oneError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = text.utf8.withContiguousStorageIfAvailable(ManifestReader.read) ?? nil
        let tree = try? PluginManifest.parseThroughTree(text)
        guard let fast else { return }
        guard let tree else {
            Issue.record("the one-pass reader accepted a manifest the tree refuses: \(text)", sourceLocation: sourceLocation)
            return
        }
        #expect(describe(fast) == describe(tree), "read differently: \(text)", sourceLocation: sourceLocation)
    }

    private func readInOnePass(_ text: String) -> PluginManifest? {
        text.utf8.withContiguousStorageIfAvailable(ManifestReader.read) ?? nil
    }

    /// The loader reads a descriptor's C string where it lies; it must read
    /// it as the same text made a String: the same manifest, or the same refusal.
    @Test func aDescriptorsCStringIsReadAsItsText() {
        typealias Reading = Result<PluginManifest, PluginManifest.Invalid>
        // Invalid UTF-8 (a lone 0xFF): the one-pass reader gives up on the
        // bytes, and the String made of them carries U+FFFD instead.
        let badUTF8 = Array(#"{"uses":["a"#.utf8) + [0xFF] + Array(#""]}"#.utf8)
        let texts = [Self.everyKey, Self.spaced, "{}", #"{"methods": 3}"#, #"{"uses": ["a\u00e9"]}"#, #"{"nope": 1}"#]
        for bytes in texts.map({ Array($0.utf8) }) + [badUTF8] {
            let cString = (bytes + [0]).map { CChar(bitPattern: $0) }
            let text = String(decoding: bytes, as: UTF8.self)
            let fromText = Reading { () throws(PluginManifest.Invalid) in try PluginManifest.parse(text) }
            let fromC = cString.withUnsafeBufferPointer { buffer in
                Reading { () throws(PluginManifest.Invalid) in try PluginManifest.parse(cString: buffer.baseAddress!) }
            }
            switch (fromText, fromC) {
            case (.success(let expected), .success(let read)):
                #expect(describe(read) == describe(expected), "\(text)")
            case (.failure(let expected), .failure(let read)):
                #expect(read.description == expected.description, "\(text)")
            default:
                Issue.record("read as text: \(fromText); read in place: \(fromC)")
            }
        }
        #expect((try? PluginManifest.parse(cString: Self.everyKey))?.readInOnePass == true)
    }

    /// The loader keeps only what the host enforces: the same manifest
    /// with its summaries, descriptions and schemas left out, from either
    /// reading, and refused exactly when the whole reading refuses it.
    @Test func theEnforcedReadingIsTheWholeOneWithoutItsDescriptions() throws {
        // The last one has a `\u` escape in a summary: the tree reads it.
        for text in [Self.everyKey, Self.spaced, "{}", #"{"methods":[{"name":"a","summary":"caf\u00e9","params":[]}]}"#] {
            let whole = try PluginManifest.parse(text)
            let enforced = try PluginManifest.parse(text, .enforced)
            #expect(describe(enforced) == describe(whole.kept(.enforced)), "\(text)")
            #expect(enforced.readInOnePass == whole.readInOnePass)
            let fromC = try text.withCString { cString throws(PluginManifest.Invalid) in try PluginManifest.parse(cString: cString, .enforced) }
            #expect(describe(fromC) == describe(enforced))
        }
        let enforced = try PluginManifest.parse(Self.everyKey, .enforced)
        #expect(enforced.methods.allSatisfy { $0.summary.isEmpty && $0.result == nil && $0.params.allSatisfy(\.description.isEmpty) })
        #expect(enforced.events.allSatisfy { $0.summary.isEmpty && $0.params == nil })
        #expect(enforced.services.allSatisfy { $0.summary.isEmpty })
        // What is enforced is all there.
        #expect(enforced.methods[0].params.map(\.name) == ["userID", "code", "level"] && enforced.methods[0].params[1].format == .userID)
        #expect(enforced.methods[0].startsDialogue && enforced.methods[1].answers == ["getThing"])
        #expect(enforced.events[0].isChallenge && enforced.events[0].isResting)
        #expect(enforced.services[0].params?.map(\.name) == ["key"] && enforced.services[1].params == nil)
        #expect(enforced.uses == ["audit.record", "sample.lookup"] && enforced.reads == ["sessions.ended", "notifications.created"])
    }

    /// Descriptions left out are still checked: a summary or a schema the
    /// whole reading refuses makes the enforced reading refuse too.
    @Test func theEnforcedReadingChecksWhatItLeavesOut() {
        let badDescriptions = [
            #"{"methods":[{"name":"a","summary":3}]}"#,
            #"{"methods":[{"name":"a","summary":"x\qy"}]}"#,
            #"{"methods":[{"name":"a","result":{"x":1,"x":2}}]}"#,
            #"{"events":[{"name":"e","params":{"x":01}}]}"#,
            #"{"methods":[{"name":"a","params":[{"name":"p","type":"string","description":"\u12"}]}]}"#,
        ]
        for text in badDescriptions {
            #expect(throws: PluginManifest.Invalid.self, "\(text)") { try PluginManifest.parse(text, .enforced) }
        }
        // Bytes that are not UTF-8 in a summary: the one-pass reading gives up on both.
        let notUTF8 = Array(#"{"methods":[{"name":"a","summary":"x"#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8)
        #expect(notUTF8.withUnsafeBufferPointer { ManifestReader.read($0, .enforced) } == nil)
    }

    @Test func plainManifestsAreReadInOnePassAsTheTreeReadsThem() throws {
        for text in [Self.everyKey, Self.spaced, "{}", " {\"methods\":[]} "] {
            let fast = try #require(readInOnePass(text), "gave up on: \(text)")
            #expect(fast.readInOnePass)
            let tree = try PluginManifest.parseThroughTree(text)
            #expect(!tree.readInOnePass)
            #expect(describe(fast) == describe(tree))
            #expect(try PluginManifest.parse(text).readInOnePass)
        }
        let spaced = try #require(readInOnePass(Self.spaced))
        #expect(spaced.methods[0].name == "answer\t/x")
        #expect(spaced.methods[0].params[0].description == "a\nb\"c\\")
        #expect(spaced.methods[1].summary == "\u{8}\u{C}\r")
        #expect(spaced.methods[1].result?.serialized() == "null")
        #expect(spaced.events[0].params?.serialized() == #"[1,-0.5,"x",{"k":[true,false,null]}]"#)
    }

    @Test func itGivesUpOnWhatTheTreeRefusesOrNamesBetter() {
        let refused = [
            #"{"method":[]}"#,  // an unknown key: the tree names the nearest
            #"{"methods":[{"name":"a","startsDialog":true}]}"#,
            #"{"methods":[],"methods":[]}"#,  // a key twice
            #"{"methods":[{"name":"a","name":"b"}]}"#,
            #"{"methods":[{"name":""}]}"#,
            #"{"methods":[{"summary":"no name"}]}"#,
            #"{"methods":[{"name":"a","startsDialogue":"yes"}]}"#,
            #"{"methods":[{"name":"a","params":[{"name":"p","type":"text"}]}]}"#,
            #"{"methods":[{"name":"a","params":[{"name":"p","type":"integer","format":"userID"}]}]}"#,
            #"{"methods":[{"name":"a","params":[{"name":"p","type":"string"},{"name":"p","type":"string"}]}]}"#,
            #"{"methods":[{"name":"a","answers":"getX"}]}"#,  // not a challenge event of this flow
            #"{"methods":[{"name":"a","result":{"x":1,"x":2}}]}"#,
            #"{"methods":[{"name":"a","result":{"x":01}}]}"#,
            #"{"events":[{"name":"e","challenge":1}]}"#,
            #"{"services":[{"name":"s","params":null}]}"#,
            #"{"uses":[""]}"#,
            #"{"reads":["sessions.opened"]}"#,
            #"{"uses":["a"]} x"#,
            #"[]"#,
            "",
        ]
        for text in refused {
            #expect(readInOnePass(text) == nil, "accepted: \(text)")
            oneError(text)
        }
        // Escapes it does not decode, and text that is not UTF-8: the tree decides.
        #expect(readInOnePass(#"{"uses":["\u0061"]}"#) == nil)
        #expect(readInOnePass(#"{"uses":["a\u0000b"]}"#) == nil)
        let notUTF8 = String(decoding: [UInt8](#"{"uses":[""#.utf8) + [0xC3, 0x28] + [UInt8](#""]}"#.utf8), as: UTF8.self)
        oneError(notUTF8)
    }

    /// Every manifest one byte away from a valid one: deleted, or replaced by
    /// a byte that matters to JSON. None may be read differently, or
    /// accepted where the tree refuses it.
    @Test func noManifestOneByteAwayIsReadDifferently() {
        var checked = 0
        var acceptedByBoth = 0
        for base in [Self.everyKey, Self.spaced] {
            let bytes = Array(base.utf8)
            let replacements: [UInt8] = Array("\"{}[],:\\ 0-1etnx".utf8) + [0x09, 0x0A, 0x00, 0x7F, 0xC3, 0xFF]
            for index in bytes.indices {
                var variants: [[UInt8]] = [Array(bytes[..<index] + bytes[(index + 1)...])]
                for byte in replacements where byte != bytes[index] {
                    var changed = bytes
                    changed[index] = byte
                    variants.append(changed)
                }
                for variant in variants {
                    // Bytes as they are: `String(decoding:)` would repair what is not UTF-8.
                    let fast = variant.withUnsafeBufferPointer(ManifestReader.read)
                    let enforcedGaveUp = variant.withUnsafeBufferPointer { ManifestReader.read($0, .enforced) } == nil
                    #expect(enforcedGaveUp == (fast == nil), "the enforced reading decided otherwise: \(variant)")
                    guard let fast else { continue }
                    guard let text = String(validating: variant, as: UTF8.self), !text.utf8.contains(0) else {
                        Issue.record("accepted bytes that are not a manifest's text: \(variant)")
                        continue
                    }
                    checked += 1
                    guard let tree = try? PluginManifest.parseThroughTree(text) else {
                        Issue.record("the one-pass reader accepted a manifest the tree refuses: \(text)")
                        continue
                    }
                    acceptedByBoth += 1
                    #expect(describe(fast) == describe(tree), "read differently: \(text)")
                    let enforced = variant.withUnsafeBufferPointer { ManifestReader.read($0, .enforced) }
                    #expect(enforced.map(describe) == describe(tree.kept(.enforced)), "kept differently: \(text)")
                }
            }
        }
        // Some variants stay valid (a space for a space, a digit in a schema):
        // the comparison above must have had something to compare.
        #expect(acceptedByBoth > 20)
        #expect(checked == acceptedByBoth)
    }

    @Test func everyKeyTheSchemaAllowsIsReadInOnePass() throws {
        // A key added to Protocol/schemas/manifest.schema.json must be read
        // here too, or every manifest that uses it loses the one-pass read.
        let manifest = try #require(readInOnePass(Self.everyKey))
        #expect(manifest.methods.count == 2)
        let json = try JSON.parse(Self.everyKey)
        #expect(Set(json.keys) == ManifestKeys.root)
        let method = try #require(json["methods"]?[0])
        let event = try #require(json["events"]?[0])
        let service = try #require(json["services"]?[0])
        let param = try #require(method["params"]?[1])
        #expect(Set(method.keys).union(["answers"]) == ManifestKeys.method)
        #expect(Set(event.keys) == ManifestKeys.event)
        #expect(Set(service.keys) == ManifestKeys.service)
        #expect(Set(param.keys) == ManifestKeys.param)
        #expect(try #require(json["methods"]?[1])["answers"] != nil)
    }
}
