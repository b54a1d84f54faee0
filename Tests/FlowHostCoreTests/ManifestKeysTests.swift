@testable import FlowHostCore
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

    @Test func aFlagOrATextOfTheWrongTypeIsRefused() {
        #expect(refusal(#"{"methods":[{"name":"m","params":[],"startsDialogue":"yes"}]}"#) == "methods[0].startsDialogue: must be true or false")
        #expect(refusal(#"{"events":[{"name":"e","summary":3}]}"#) == "events[0].summary: must be a string")
        #expect(refusal(#"{"methods":[{"name":"m","params":[],"startsDialogue":true,"summary":"ok"}],"events":[{"name":"e","resting":true}]}"#) == nil)
    }

    @Test func theNearestKeyIsOnlySuggestedWhenItIsASlip() {
        #expect(ManifestKeys.distance("startsDialog", "startsDialogue") == 2)
        #expect(ManifestKeys.nearest(to: "colour", in: ManifestKeys.service) == nil)
        #expect(ManifestKeys.nearest(to: "Name", in: ManifestKeys.service) == "name")
    }
}
