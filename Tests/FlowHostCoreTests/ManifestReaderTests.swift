@testable import FlowHostCore
@testable import FlowHostSDK
import FlowJSON
import Testing

/// The manifest reader: what it accepts and how it reads it, and each
/// refusal with the path of the fault, or for text that is not JSON its
/// line, column and an excerpt.
@Suite struct ManifestReaderTests {
    /// A manifest with every key at every level, as the SDK writes it.
    static let everyKey = FlowDeclaration(
        name: "sample", version: "1.0.0",
        methods: [
            FlowMethod(
                "begin", summary: "Starts it (\"quoted\", back\\slash, é, 🔑, a/b).",
                params: [
                    FlowParam("userID", .string, description: "who"),
                    FlowParam("code", .string, required: false, format: .userID, secret: true),
                    FlowParam("level", .integer),
                ],
                resultSchema: #"{"type": "object",  "properties": {"b": {"type": ["string", "null"]}, "a": {"minimum": -1.5e3}}}"#,
                startsDialogue: true,
                errors: [FlowErrorDeclaration(7, "Too many tries", description: "Wait an hour."), FlowErrorDeclaration(-32006, "Not now")]),
            FlowMethod("answer", params: [FlowParam("value", .any)], answers: ["getThing"]),
        ],
        events: [
            FlowEvent("getThing", summary: "asks", paramsSchema: #"{"type":"object","required":["a"]}"#, challenge: true, resting: true),
            FlowEvent("onDone", paramsSchema: "true"),
        ],
        services: [FlowService("sample.lookup", summary: "s", params: [FlowParam("key", .string)]), FlowService("sample.free")],
        uses: ["audit.record", "sample.lookup"], reads: ["sessions.ended", "notifications.created"]
    ).manifestText()

    /// The same kind of manifest laid out by hand: whitespace everywhere
    /// JSON allows it, keys in another order, every escape.
    static let spaced = """
        \r\n { "uses" : [ "audit.record", "caf\\u00e9", "\\ud83d\\udd11" ] ,
          "methods": [ { "answers": "getThing", "name" : "answer\\t\\/x", "params": [
             { "type": "string", "name": "v", "format": "deviceName", "required": false, "description": "a\\nb\\"c\\\\", "secret": true } ] },
           {"result": null, "name": "plain", "startsDialogue": false, "summary": "\\b\\f\\r", "errors": [ {"message": "m", "code": 141} ] } ],
          "events" : [ {"challenge" : true, "name":"getThing", "params": [ 1, -0.5, "x", {"k": [true, false, null]} ] } ],
          "services": [ ], "reads": [] }\t
        """

    private func refusal(_ text: String, _ reading: PluginManifest.Reading = .whole) -> String? {
        do {
            _ = try PluginManifest.parse(text, reading)
            return nil
        } catch {
            return error.description
        }
    }

    private func refusal(bytes: [UInt8]) -> String? {
        let cString = (bytes + [0]).map { CChar(bitPattern: $0) }
        return cString.withUnsafeBufferPointer { buffer -> String? in
            do throws(PluginManifest.Invalid) {
                _ = try PluginManifest.parse(cString: buffer.baseAddress!)
                return nil
            } catch {
                return error.description
            }
        }
    }

    @Test func everyKeyIsReadAsDeclared() throws {
        let manifest = try PluginManifest.parse(Self.everyKey)
        let begin = manifest.methods[0]
        #expect(begin.summary == "Starts it (\"quoted\", back\\slash, é, 🔑, a/b).")
        #expect(begin.params.map(\.secret) == [false, true, false])
        #expect(begin.params[1].format == .userID && !begin.params[1].required)
        #expect(begin.errors == [DeclaredError(code: 7, message: "Too many tries", description: "Wait an hour."), DeclaredError(code: -32006, message: "Not now")])
        #expect(begin.result?.serialized() == #"{"type":"object","properties":{"b":{"type":["string","null"]},"a":{"minimum":-1500.0}}}"#)
        #expect(manifest.methods[1].answers == ["getThing"] && manifest.methods[1].errors.isEmpty)
        #expect(manifest.events[0].params?.serialized() == #"{"type":"object","required":["a"]}"#)
        #expect(manifest.events[1].params?.serialized() == "true")
        #expect(manifest.uses == ["audit.record", "sample.lookup"] && manifest.reads == ["sessions.ended", "notifications.created"])
    }

    @Test func whitespaceKeyOrderAndEveryEscapeAreRead() throws {
        let spaced = try PluginManifest.parse(Self.spaced)
        #expect(spaced.uses == ["audit.record", "café", "🔑"])
        #expect(spaced.methods[0].name == "answer\t/x")
        #expect(spaced.methods[0].params == [ParamSpec(name: "v", type: .string, required: false, description: "a\nb\"c\\", format: .deviceName, secret: true)])
        #expect(spaced.methods[1].summary == "\u{8}\u{C}\r")
        #expect(spaced.methods[1].result?.serialized() == "null")
        #expect(spaced.methods[1].errors == [DeclaredError(code: 141, message: "m")])
        #expect(spaced.events[0].params?.serialized() == #"[1,-0.5,"x",{"k":[true,false,null]}]"#)
        // A key may be escaped too: it is the key it spells.
        #expect(try PluginManifest.parse(#"{"m\u0065thods":[{"n\u0061me":"a"}]}"#).methods.map(\.name) == ["a"])
    }

    /// The loader keeps only what the host enforces: the same manifest
    /// with its summaries, descriptions, error messages and schemas left out.
    @Test func theEnforcedReadingIsTheWholeOneWithoutItsDescriptions() throws {
        let whole = try PluginManifest.parse(Self.everyKey)
        let enforced = try PluginManifest.parse(Self.everyKey, .enforced)
        #expect(enforced.methods.allSatisfy { $0.summary.isEmpty && $0.result == nil && $0.params.allSatisfy(\.description.isEmpty) })
        #expect(enforced.methods.allSatisfy { $0.errors.allSatisfy { $0.message.isEmpty && $0.description.isEmpty } })
        #expect(enforced.events.allSatisfy { $0.summary.isEmpty && $0.params == nil })
        #expect(enforced.services.allSatisfy { $0.summary.isEmpty })
        // What is enforced is all there.
        #expect(enforced.methods.map(\.name) == whole.methods.map(\.name))
        #expect(enforced.methods[0].params.map(\.name) == ["userID", "code", "level"] && enforced.methods[0].params[1].format == .userID)
        #expect(enforced.methods[0].params.map(\.secret) == [false, true, false])
        #expect(enforced.methods[0].errors.map(\.code) == [7, -32006])
        #expect(enforced.methods[0].startsDialogue && enforced.methods[1].answers == ["getThing"])
        #expect(enforced.events[0].isChallenge && enforced.events[0].isResting)
        #expect(enforced.services[0].params?.map(\.name) == ["key"] && enforced.services[1].params == nil)
        #expect(enforced.uses == whole.uses && enforced.reads == whole.reads)
        // Read in place from a C string, the same.
        let fromC = try Self.everyKey.withCString { cString throws(PluginManifest.Invalid) in try PluginManifest.parse(cString: cString, .enforced) }
        #expect(fromC.methods[0].params == enforced.methods[0].params && fromC.methods[0].errors == enforced.methods[0].errors)
    }

    /// What a refusal says: the path of the fault and what is wrong.
    @Test func eachFaultOfContentIsNamedByItsPath() {
        let refused: [(String, String)] = [
            (#"{"method":[]}"#, #"method: unknown key; did you mean "methods"?"#),
            (#"{"methods":[{"name":"a"},{"name":"b","startsDialog":true}]}"#, #"methods[1].startsDialog: unknown key; did you mean "startsDialogue"?"#),
            (#"{"methods":[{"name":"a","params":[{"name":"p","type":"string","secrte":true}]}]}"#,
             #"methods[0].params[0].secrte: unknown key; did you mean "secret"?"#),
            (#"{"methods":[{"name":"a","errors":[{"code":1,"mesage":"x"}]}]}"#, #"methods[0].errors[0].mesage: unknown key; did you mean "message"?"#),
            (#"{"methods":[{"name":""}]}"#, "methods[0].name: required non-empty string"),
            (#"{"methods":[{"summary":"no name"}]}"#, "methods[0].name: required non-empty string"),
            (#"{"methods":[{"name":3}]}"#, "methods[0].name: required non-empty string"),
            (#"{"methods":[3]}"#, "methods[0]: must be an object"),
            (#"{"methods":{}}"#, "methods: must be an array"),
            (#"{"methods":[{"name":"a","params":{}}]}"#, "methods[0].params: must be an array"),
            (#"{"methods":[{"name":"a","startsDialogue":"yes"}]}"#, "methods[0].startsDialogue: must be true or false"),
            (#"{"events":[{"name":"e","summary":3}]}"#, "events[0].summary: must be a string"),
            (#"{"events":[{"name":"e","challenge":1}]}"#, "events[0].challenge: must be true or false"),
            (#"{"methods":[{"name":"a","params":[{"name":"p","type":"text"}]}]}"#, #"methods[0].params[0].type: unknown type "text""#),
            (#"{"methods":[{"name":"a","params":[{"name":"p"}]}]}"#, "methods[0].params[0].type: required non-empty string"),
            (#"{"methods":[{"name":"a","params":[{"name":"q","type":"string"},{"name":"p","type":"string","secret":"yes"}]}]}"#,
             "methods[0].params[1].secret: must be true or false"),
            (#"{"methods":[{"name":"a","params":[{"name":"p","type":"string","format":"email"}]}]}"#,
             #"methods[0].params[0].format: unknown format "email" for a string"#),
            (#"{"methods":[{"name":"a","params":[{"name":"p","type":"integer","format":"userID"}]}]}"#,
             #"methods[0].params[0].format: format "userID" is for a string param only, not a integer"#),
            (#"{"methods":[{"name":"a","params":[{"name":"p","type":"string"},{"name":"p","type":"string"}]}]}"#,
             #"methods[0].params: duplicate parameter name "p""#),
            (#"{"methods":[{"name":"a","answers":3}]}"#, "methods[0].answers: must be a string or an array of strings"),
            (#"{"methods":[{"name":"a","answers":["x",3]}]}"#, "methods[0].answers: must be a string or an array of strings"),
            (#"{"methods":[{"name":"a","answers":"getX"}]}"#, #"method a answers "getX", which is not a challenge event of this flow"#),
            (#"{"methods":[{"name":"a","errors":[{"code":0,"message":"x"}]}]}"#,
             "methods[0].errors[0].code: must be a non-zero integer from -2147483648 to 2147483647"),
            (#"{"methods":[{"name":"a","errors":[{"code":2147483648,"message":"x"}]}]}"#,
             "methods[0].errors[0].code: must be a non-zero integer from -2147483648 to 2147483647"),
            (#"{"methods":[{"name":"a","errors":[{"code":1.5,"message":"x"}]}]}"#,
             "methods[0].errors[0].code: must be a non-zero integer from -2147483648 to 2147483647"),
            (#"{"methods":[{"name":"a","errors":[{"code":"7","message":"x"}]}]}"#,
             "methods[0].errors[0].code: must be a non-zero integer from -2147483648 to 2147483647"),
            (#"{"methods":[{"name":"a","errors":[{"message":"x"}]}]}"#, "methods[0].errors[0].code: required: a non-zero integer"),
            (#"{"methods":[{"name":"a","errors":[{"code":7}]}]}"#, "methods[0].errors[0].message: required non-empty string"),
            (#"{"methods":[{"name":"a","errors":[{"code":7,"message":""}]}]}"#, "methods[0].errors[0].message: required non-empty string"),
            (#"{"methods":[{"name":"a","errors":[{"code":7,"message":"x"},{"code":7,"message":"y"}]}]}"#,
             "methods[0].errors[1]: code 7 is declared twice"),
            (#"{"services":[{"name":"s","params":null}]}"#, "services[0].params: must be an array"),
            (#"{"uses":[""]}"#, "uses[0]: must be a service name"),
            (#"{"uses":[3]}"#, "uses[0]: must be a service name"),
            (#"{"reads":["sessions.opened"]}"#,
             #"reads[0]: "sessions.opened" is not a host topic a flow may read (one of notifications.created, notifications.updated, sessions.ended); a flow's own topics need no listing"#),
            ("[]", "manifest must be an object"),
            (#""methods""#, "manifest must be an object"),
        ]
        for (text, expected) in refused {
            #expect(refusal(text) == expected, "\(text)")
            // The loader's reading refuses it the same way.
            #expect(refusal(text, .enforced) == expected, "\(text)")
        }
    }

    /// Text that is not JSON: where it stops being JSON, by line and column,
    /// within which entry, and the text around it.
    @Test func textThatIsNotJSONIsRefusedWithItsPlaceAndAnExcerpt() {
        let refused: [(String, String)] = [
            ("", #"manifest is not JSON: the text is empty at line 1, column 1 near """#),
            ("x", #"manifest is not JSON: expected '{' at line 1, column 1 near "x""#),
            (#"{"uses":["a"]} x"#, #"manifest is not JSON: text after the manifest's end at line 1, column 16 near "{"uses":["a"]} x""#),
            ("{\"methods\":[\n  {\"name\":\"a\" \"summary\":\"b\"}]}",
             #"manifest is not JSON: expected ',' or '}' at line 2, column 15 (in methods[0]) near "  {"name":"a" "summary":"b"}]}""#),
            (#"{"methods":[{"name":"a"} {"name":"b"}]}"#, #"manifest is not JSON: expected ',' or ']' at line 1, column 26 (in methods) near "{"methods":[{"name":"a"} {"name":"b"}]}""#),
            (#"{"methods":[],"methods":[]}"#, #"manifest is not JSON: key "methods" given twice at line 1, column 15 near "{"methods":[],"methods":[]}""#),
            (#"{"methods":[{"name":"a","name":"b"}]}"#, #"manifest is not JSON: key "name" given twice at line 1, column 25 (in methods[0]) near "{"methods":[{"name":"a","name":"b"}]}""#),
            (#"{"methods":[{"name":"a","summary":"x\qy"}]}"#, #"manifest is not JSON: an unknown escape at line 1, column 37 (in methods[0].summary) near "{"methods":[{"name":"a","summary":"x\qy"}]}""#),
            (#"{"uses":["a\u0000b"]}"#, #"manifest is not JSON: \u0000 is not allowed at line 1, column 12 (in uses[0]) near "{"uses":["a\u0000b"]}""#),
            (#"{"uses":["\udc00"]}"#, #"manifest is not JSON: a \u escape of half a surrogate pair at line 1, column 11 (in uses[0]) near "{"uses":["\udc00"]}""#),
            (#"{"uses":["\u12"]}"#, #"manifest is not JSON: a \u escape without four hex digits at line 1, column 11 (in uses[0]) near "{"uses":["\u12"]}""#),
            ("{\"uses\":[\"a\tb\"]}", "manifest is not JSON: a control character in a string (write it as an escape) at line 1, column 12 (in uses[0]) near \"{\"uses\":[\"a\tb\"]}\""),
            (#"{"uses":["a"#, #"manifest is not JSON: a string without its closing quote at line 1, column 10 (in uses[0]) near "{"uses":["a""#),
            (#"{"methods":[{"name":"a","startsDialogue":tru}]}"#, #"manifest is not JSON: expected true or false at line 1, column 42 (in methods[0].startsDialogue) near "{"methods":[{"name":"a","startsDialogue":tru}]}""#),
            (#"{"methods":[{"name":"a","errors":[{"code":07,"message":"x"}]}]}"#, #"manifest is not JSON: invalid number at line 1, column 43 (in methods[0].errors[0].code) near "{"methods":[{"name":"a","errors":[{"code":07,"message":"x"}]}]""#),
        ]
        for (text, expected) in refused {
            #expect(refusal(text) == expected, "\(text)")
            #expect(refusal(text, .enforced) == expected, "\(text)")
        }
    }

    /// A schema is parsed by the strict reader: its fault is placed in the
    /// whole manifest's text, and named by the schema's path.
    @Test func aSchemaThatIsNotJSONIsPlacedInTheManifest() {
        let cases: [(String, String)] = [
            ("{\"methods\":[{\"name\":\"a\",\n\"result\":{\"x\":1,\"x\":2}}]}", "(in methods[0].result)"),
            (#"{"events":[{"name":"e","params":{"x":01}}]}"#, "(in events[0].params)"),
        ]
        for (text, place) in cases {
            let refused = refusal(text) ?? ""
            #expect(refused.hasPrefix("manifest is not JSON: "), "\(refused)")
            #expect(refused.contains(place), "\(refused)")
            #expect(refusal(text, .enforced) == refused)
        }
        #expect(refusal("{\"methods\":[{\"name\":\"a\",\n\"result\":{\"x\":1,\"x\":2}}]}")?.contains("at line 2, column ") == true)
        // Nested as deep as JSON.parse allows, counting the levels above the schema; one more is refused.
        let deepest = 2048 - 3
        let deep = #"{"methods":[{"name":"a","result":"# + String(repeating: "[", count: deepest) + String(repeating: "]", count: deepest) + "}]}"
        #expect(refusal(deep) == nil)
        let tooDeep = #"{"methods":[{"name":"a","result":"# + String(repeating: "[", count: deepest + 1) + String(repeating: "]", count: deepest + 1) + "}]}"
        #expect(refusal(tooDeep)?.contains("nested deeper than 2048 levels") == true)
    }

    /// A descriptor's C string is read where it lies, as the same text made
    /// a String; bytes that are not UTF-8 are refused, never repaired.
    @Test func aDescriptorsCStringIsReadAsItsText() throws {
        for text in [Self.everyKey, Self.spaced, "{}", #"{"methods": 3}"#, #"{"nope": 1}"#] {
            #expect(refusal(bytes: Array(text.utf8)) == refusal(text), "\(text)")
        }
        let notUTF8 = Array(#"{"uses":["a"#.utf8) + [0xFF] + Array(#""]}"#.utf8)
        #expect(refusal(bytes: notUTF8)?.hasPrefix("manifest is not JSON: a string that is not UTF-8 at line 1, column 10 (in uses[0])") == true)
        let inASummary = Array(#"{"methods":[{"name":"a","summary":"x"#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8)
        #expect(refusal(bytes: inASummary)?.contains("not UTF-8") == true)
        let inASchema = Array(#"{"methods":[{"name":"a","result":{"x":""#.utf8) + [0xC3, 0x28] + Array(#""}}]}"#.utf8)
        #expect(refusal(bytes: inASchema)?.contains("(in methods[0].result)") == true)
    }

    /// Every manifest one byte away from a valid one: deleted, or replaced
    /// by a byte that matters to JSON. The reader accepts only JSON, reads
    /// it alike whether it keeps descriptions or not, and refuses the rest
    /// with a line that says where.
    @Test func noManifestOneByteAwayIsAcceptedUnlessItIsJSON() {
        var accepted = 0
        for base in [Self.everyKey, Self.spaced] {
            let bytes = Array(base.utf8)
            let replacements: [UInt8] = Array("\"{}[],:\\ 0-1etnx".utf8) + [0x09, 0x0A, 0x7F, 0xC3, 0xFF]
            for index in bytes.indices {
                var variants: [[UInt8]] = [Array(bytes[..<index] + bytes[(index + 1)...])]
                for byte in replacements where byte != bytes[index] {
                    var changed = bytes
                    changed[index] = byte
                    variants.append(changed)
                }
                for variant in variants {
                    let whole = refusal(bytes: variant)
                    let cString = (variant + [0]).map { CChar(bitPattern: $0) }
                    let enforced = cString.withUnsafeBufferPointer { buffer in
                        Result { () throws(PluginManifest.Invalid) in try PluginManifest.parse(cString: buffer.baseAddress!, .enforced) }
                    }
                    switch enforced {
                    case .success: #expect(whole == nil, "the enforced reading accepted what the whole one refuses: \(variant)")
                    case .failure(let error): #expect(whole == error.description, "refused otherwise: \(variant)")
                    }
                    guard let whole else {
                        accepted += 1
                        let isJSON = variant.withUnsafeBytes { (try? JSON.parse($0)) != nil }
                        #expect(isJSON, "accepted text that is not JSON: \(String(decoding: variant, as: UTF8.self))")
                        continue
                    }
                    #expect(!whole.isEmpty)
                    if whole.hasPrefix("manifest is not JSON: ") { #expect(whole.contains(" at line ") && whole.contains(" near \"")) }
                }
            }
        }
        // Some variants stay valid (a space for a space, a digit in a schema).
        #expect(accepted > 20)
    }

    @Test func everyKeyTheSchemaAllowsIsRead() throws {
        // A key added to Protocol/schemas/manifest.schema.json must be read
        // here too: the reader refuses what it does not know.
        let json = try JSON.parse(Self.everyKey)
        #expect(Set(json.keys) == ManifestKeys.root)
        let method = try #require(json["methods"]?[0])
        let event = try #require(json["events"]?[0])
        let service = try #require(json["services"]?[0])
        let param = try #require(method["params"]?[1])
        let error = try #require(method["errors"]?[0])
        #expect(Set(method.keys).union(["answers"]) == ManifestKeys.method)
        #expect(Set(event.keys) == ManifestKeys.event)
        #expect(Set(service.keys) == ManifestKeys.service)
        #expect(Set(param.keys) == ManifestKeys.param)
        #expect(Set(error.keys) == ManifestKeys.error)
        #expect(try #require(json["methods"]?[1])["answers"] != nil)
        #expect(try PluginManifest.parse(Self.everyKey).methods.count == 2)
    }
}
