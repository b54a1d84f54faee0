import FlowHostSDK
import FlowJSON
import Testing

/// The one mapping of step-up's outcomes to the SDK's statuses, shared by
/// the notification action, the LDA toggle and the signing.
@Suite struct StepUpOutcomeTests {
    @Test(arguments: [
        ("authenticated", 100, false), ("exhausted", 153, true), ("expired", 110, true), ("ldaCancelled", 100, false),
        ("cancelled", 121, false), ("biometricUnavailable", 100, false), ("biometricCancelled", 100, false),
        ("biometricFailed", 100, false), ("somethingNew", 114, false),
    ])
    func eachOutcomeHasOneStatus(outcome: String, status: Int, endsSession: Bool) {
        let parsed = StepUpOutcome(["outcome": .string(outcome)])
        #expect(parsed.status == status)
        #expect(parsed.endsSession == endsSession)
    }

    @Test func aRefusalKeepsTheHostsStatusAndAnAuthenticationItsFactor() {
        #expect(StepUpOutcome(["outcome": "refused", "status": 141]) == .refused(status: 141))
        #expect(StepUpOutcome(["outcome": "refused"]).status == 126)
        #expect(StepUpOutcome(["outcome": "authenticated", "verifiedBy": "lda"]) == .authenticated(verifiedBy: "lda"))
        #expect(StepUpOutcome(.object()) == .unknown(nil))
    }
}
