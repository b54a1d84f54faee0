@testable import FlowHostCore
import FlowHostPOSIX
import FlowHostVocabulary
import FlowJSON
import Testing

/// A manifest holds only the keys the host reads: a misspelt one is refused
/// with its path and the key that was probably meant, never ignored.
@Suite struct ManifestKeysTests {
    private func refusal(_ text: String) -> String? {
        do {
            _ = try PluginManifest.parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aMisspeltKeyIsRefusedWithItsPathAndTheNearestKnownOne() {
        #expect(
            refusal(#"{"methods":[{"name":"a","params":[]},{"name":"begin","params":[],"startsDialog":true}]}"#)
                == #"methods[1].startsDialog: unknown key; did you mean "startsDialogue"?"#)
        #expect(refusal(#"{"method":[]}"#) == #"method: unknown key; did you mean "methods"?"#)
        #expect(refusal(#"{"events":[{"name":"e","chalenge":true}]}"#) == #"events[0].chalenge: unknown key; did you mean "challenge"?"#)
        #expect(
            refusal(#"{"methods":[{"name":"m","params":[{"name":"p","type":"string","requird":false}]}]}"#)
                == #"methods[0].params[0].requird: unknown key; did you mean "required"?"#)
        #expect(refusal(#"{"services":[{"name":"s","colour":"red"}]}"#) == "services[0].colour: unknown key")
    }

    @Test func aKeyIsKnownOnlyWhenEveryByteMatches() {
        // Keys are compared as bytes with their lengths: a known key's prefix
        // or extension, or another case, is not that key.
        #expect(refusal(#"{"methods":[{"name":"m","names":"x"}]}"#) == #"methods[0].names: unknown key; did you mean "name"?"#)
        #expect(refusal(#"{"events":[{"name":"e","challeng":true}]}"#) == #"events[0].challeng: unknown key; did you mean "challenge"?"#)
        #expect(refusal(#"{"services":[{"name":"s","Summary":"x"}]}"#) == #"services[0].Summary: unknown key; did you mean "summary"?"#)
        #expect(refusal(#"{"methods":[],"events":[],"services":[],"uses":[],"reads":[]}"#) == nil)
    }

    @Test func aParamNamedTwiceIsRefused() {
        let twice = #"{"methods":[{"name":"m","params":[{"name":"a","type":"string"},{"name":"b","type":"integer"},{"name":"a","type":"string"}]}]}"#
        #expect(refusal(twice) == #"methods[0].params: duplicate parameter name "a""#)
        #expect(refusal(twice.replacingOccurrences(of: #"{"name":"a","type":"string"}]"#, with: #"{"name":"c","type":"string"}]"#)) == nil)
    }

    @Test func anAnswerToAnEventThatIsNotAChallengeIsRefused() {
        let events = #""events":[{"name":"getThing","challenge":true},{"name":"onDone"}]"#
        #expect(refusal(#"{"methods":[{"name":"m","answers":["getThing"]}],"# + events + "}") == nil)
        #expect(
            refusal(#"{"methods":[{"name":"m","answers":["getThing","onDone"]}],"# + events + "}")
                == #"method m answers "onDone", which is not a challenge event of this flow"#)
        #expect(
            refusal(#"{"methods":[{"name":"m","answers":"getOther"}],"# + events + "}")
                == #"method m answers "getOther", which is not a challenge event of this flow"#)
    }

    @Test func aFlagOrATextOfTheWrongTypeIsRefused() {
        #expect(refusal(#"{"methods":[{"name":"m","params":[],"startsDialogue":"yes"}]}"#) == "methods[0].startsDialogue: must be true or false")
        #expect(refusal(#"{"events":[{"name":"e","summary":3}]}"#) == "events[0].summary: must be a string")
        #expect(refusal(#"{"methods":[{"name":"m","params":[],"startsDialogue":true,"summary":"ok"}],"events":[{"name":"e","resting":true}]}"#) == nil)
    }

    @Test func theNearestKeyIsOnlySuggestedWhenItIsASlip() {
        #expect(NearestName.distance("startsDialog", "startsDialogue") == 2)
        #expect(NearestName.to("colour", in: ManifestKeys.service) == nil)
        #expect(NearestName.to("Name", in: ManifestKeys.service) == "name")
        #expect(NearestName.to("sesion.open", in: ["session.open", "session.close", "stepup.authenticate"]) == "session.open")
        // Equally near: the first by name. Too long or too short to be a slip: none.
        #expect(NearestName.to("ab", in: ["ad", "ac"]) == "ac")
        #expect(NearestName.to("abc", in: ["abcdef", "xyz"]) == nil)
        #expect(NearestName.to("Überweisung", in: ["überweisungen"]) == "überweisungen")
    }
}

/// The published manifest schema and the loader agree on the names a
/// manifest may use for param types and formats (its keys are generated
/// from it: `Generated/ManifestSchemaKeys.swift`).
@Suite struct ManifestSchemaTests {
    @Test func theSchemaListsEveryParamTypeAndFormatTheLoaderKnows() throws {
        let path = String(#filePath.prefix(upTo: #filePath.range(of: "/Tests/")!.lowerBound)) + "/Protocol/schemas/manifest.schema.json"
        let schema = try JSON.parse(String(decoding: try SystemFile.read(path), as: UTF8.self))
        let param = schema["$defs"]?["param"]?["properties"]
        let types = Set(param?["type"]?["enum"]?.elements.compactMap(\.stringValue) ?? [])
        let formats = Set(param?["format"]?["enum"]?.elements.compactMap(\.stringValue) ?? [])
        #expect(types == Set(ParamType.allCases.map(\.rawValue)))
        #expect(formats == Set(ParamFormat.allCases.map(\.rawValue)))
        let reads = Set(schema["properties"]?["reads"]?["items"]?["enum"]?.elements.compactMap(\.stringValue) ?? [])
        #expect(reads == FeedTopic.readableHostTopics)
    }
}
