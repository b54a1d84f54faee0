@testable import FlowHostCore
import FlowHostVocabulary
import FlowJSON
import Testing

/// What a manifest declares beyond names and types, as the host holds a
/// flow to it: event schemas, declared errors, declared secrets.
@Suite struct ManifestDeclarationsTests {
    private func violation(_ schema: String, _ value: String) throws -> String? {
        EnforcedSchema(try JSON.parse(schema)).violation(of: try JSON.parse(value))
    }

    @Test func anEventSchemaIsEnforcedKeywordByKeyword() throws {
        let schema = #"""
            {"type": "object", "required": ["pin", "count"], "additionalProperties": false,
             "properties": {"pin": {"type": "string", "minLength": 4, "maxLength": 6, "secret": true, "description": "d"},
                            "count": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10},
                            "kind": {"enum": ["a", "b"]}, "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]}, "never": false}}
            """#
        #expect(try violation(schema, #"{"pin": "1234", "count": 1}"#) == nil)
        #expect(try violation(schema, #"{"pin": "1234", "count": 9.0, "kind": "b", "tags": ["x"], "either": 3}"#) == nil)
        let refused: [(String, String)] = [
            (#"[]"#, "params: must be object"),
            (#"{"pin": "1234"}"#, "params.count: required"),
            (#"{"pin": 1234, "count": 1}"#, "params.pin: must be string"),
            (#"{"pin": "123", "count": 1}"#, "params.pin: shorter than 4"),
            (#"{"pin": "🔑🔑🔑🔑🔑🔑🔑", "count": 1}"#, "params.pin: longer than 6"),
            (#"{"pin": "1234", "count": 0}"#, "params.count: less than 1"),
            (#"{"pin": "1234", "count": 10}"#, "params.count: not less than 10"),
            (#"{"pin": "1234", "count": 1.5}"#, "params.count: must be integer"),
            (#"{"pin": "1234", "count": 1, "kind": "c"}"#, "params.kind: not one of the allowed values"),
            (#"{"pin": "1234", "count": 1, "tags": ["x", 2]}"#, "params.tags[1]: must be string"),
            (#"{"pin": "1234", "count": 1, "tags": ["x", "y", "z"]}"#, "params.tags: more than 2 items"),
            (#"{"pin": "1234", "count": 1, "either": true}"#, "params.either: fits 0 of oneOf, not exactly one"),
            (#"{"pin": "1234", "count": 1, "never": 1}"#, "params.never: not allowed"),
            (#"{"pin": "1234", "count": 1, "other": 1}"#, "params.other: not allowed"),
        ]
        for (value, expected) in refused { #expect(try violation(schema, value) == expected, "\(value)") }
        // The refusal names where and which rule, never the value.
        #expect(try violation(schema, #"{"pin": 98765, "count": 1}"#)?.contains("98765") == false)
    }

    @Test func everyKeywordTheHostEnforcesNamesItsPlaceAndRule() throws {
        let schema = #"""
            {"type": "object", "minProperties": 1, "maxProperties": 3,
             "properties": {"n": {"type": ["integer", "null"], "maximum": 5, "exclusiveMinimum": -1.5},
                            "c": {"const": {"k": [1, "x"]}},
                            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false, "minItems": 2},
                            "deep": {"type": "object", "properties": {"list": {"items": {"properties": {"v": {"minimum": 0}}}}}},
                            "any": {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
                            "all": {"allOf": [{"type": "integer"}, {"minimum": 3}]},
                            "not": {"not": {"type": "string"}}},
             "additionalProperties": {"type": "string"}}
            """#
        #expect(try violation(schema, #"{"n": null}"#) == nil)
        #expect(try violation(schema, #"{"n": 5, "c": {"k": [1, "x"]}, "extra": "s"}"#) == nil)
        #expect(try violation(schema, #"{"pair": ["a", 1.5], "deep": {"list": [{"v": 0}, {}]}}"#) == nil)
        #expect(try violation(schema, #"{"any": true, "all": 3, "not": 1}"#) == nil)
        let refused: [(String, String)] = [
            (#"{}"#, "params: fewer than 1 members"),
            (#"{"n": 1, "any": "a", "all": 4, "not": 2}"#, "params: more than 3 members"),
            (#"{"n": "1"}"#, "params.n: must be integer or null"),
            (#"{"n": 6}"#, "params.n: more than 5"),
            (#"{"n": -2}"#, "params.n: not more than -1.5"),
            (#"{"c": {"k": [1]}}"#, "params.c: not the required value"),
            (#"{"pair": ["a"]}"#, "params.pair: fewer than 2 items"),
            (#"{"pair": [1, 1]}"#, "params.pair[0]: must be string"),
            (#"{"pair": ["a", 1, null]}"#, "params.pair[2]: not allowed"),
            (#"{"deep": {"list": [{"v": 1}, {"v": -1}]}}"#, "params.deep.list[1].v: less than 0"),
            (#"{"any": 1}"#, "params.any: fits none of anyOf"),
            (#"{"all": 2}"#, "params.all: less than 3"),
            (#"{"all": "3"}"#, "params.all: must be integer"),
            (#"{"not": "s"}"#, #"params.not: fits what "not" excludes"#),
            (#"{"extra": 1}"#, "params.extra: must be string"),
        ]
        for (value, expected) in refused { #expect(try violation(schema, value) == expected, "\(value)") }
        #expect(try violation("false", "{}") == "params: not allowed")
        #expect(try violation(#"{"enum": 3}"#, "{}") == "params: not one of the allowed values", "an enum that is no list allows nothing")
    }

    @Test func aSchemaWithAKeywordTheHostDoesNotEnforceRefusesEveryEvent() throws {
        let patterned = #"{"type": "object", "properties": {"tag": {"type": "string", "pattern": "^a"}}}"#
        #expect(try violation(patterned, #"{"tag": "abc"}"#) == #"schema.properties.tag: the host does not enforce "pattern""#)
        #expect(try violation(##"{"$ref": "#/$defs/x"}"##, "{}") == #"schema: the host does not enforce "$ref""#)
        #expect(try violation(#"{"allOf": [{"if": {}}]}"#, "{}") == #"schema.allOf[0]: the host does not enforce "if""#)
        #expect(try violation("true", #"{"any": 1}"#) == nil)
    }

    @Test func aMethodThatDeclaresErrorsIsHeldToThem() {
        let declaring = MethodSpec(name: "codes.redeem", errors: [DeclaredError(code: -32011, message: "Too many tries"), DeclaredError(code: 141, message: "m")])
        #expect(declaring.undeclared(FlowHostError(.tooManyRequests, message: "wait"), by: "codes") == nil)
        #expect(declaring.undeclared(FlowHostError.sdk(141, "refused"), by: "codes") == nil)
        #expect(declaring.undeclared(FlowHostError.internalError, by: "codes") == nil, "a flow may always fail")
        #expect(declaring.undeclared(FlowHostError(.flowFailed, message: "crashed"), by: "codes") == nil, "the host's word on an isolated flow")
        let broken = declaring.undeclared(FlowHostError(.notAllowedNow, message: "user alice is locked"), by: "codes")
        #expect(broken?.code == .internalError)
        #expect(broken?.message.contains("alice") == false, "the flow's message is not passed on")
        #expect(broken?.data == ["reason": "undeclaredError", "flow": "codes", "method": "codes.redeem", "code": .int(-32006)])
        #expect(MethodSpec(name: "free").undeclared(FlowHostError(.notAllowedNow, message: "x"), by: "codes") == nil)
    }

    @Test func declaredSecretsAreMaskedWhateverTheirNames() throws {
        let manifest = try PluginManifest.parse(#"""
            {"methods": [{"name": "codes.redeem", "params": [{"name": "userID", "type": "string"}, {"name": "entry", "type": "string", "secret": true}]}],
             "events": [{"name": "onCodesIssued", "params": {"type": "object", "properties": {"batch": {"properties": {"list": {"secret": true}}}, "count": {}}}}]}
            """#)
        let secrets = DeclaredSecrets([manifest])
        let byName: JSON = try JSON.parse(#"{"jsonrpc":"2.0","id":1,"method":"codes.redeem","params":{"userID":"alice","entry":"k3y-9"}}"#)
        FrameTrace.masked(byName, declared: secrets)
        #expect(byName["params"]?.serialized() == #"{"userID":"alice","entry":"•••"}"#)
        let byPosition: JSON = try JSON.parse(#"{"jsonrpc":"2.0","id":1,"method":"codes.redeem","params":["alice","k3y-9"]}"#)
        FrameTrace.masked(byPosition, declared: secrets)
        #expect(byPosition["params"]?.serialized() == #"["alice","•••"]"#)
        let event: JSON = try JSON.parse(#"{"jsonrpc":"2.0","method":"onCodesIssued","params":{"batch":{"list":[1,2]},"count":2,"code":"x"}}"#)
        FrameTrace.masked(event, declared: secrets)
        #expect(event["params"]?.serialized() == #"{"batch":{"list":"•••"},"count":2,"code":"•••"}"#, "declared and named alike")
    }
}
