import CFlowHostABI
import FlowHostVocabulary
import Testing

/// FlowHost's own challenge mode is one number, whichever side names it.
@Suite struct ForeignChallengeModeTests {
    @Test func theHeadersModeIsTheVocabularys() {
        #expect(Int(FLOWHOST_CHALLENGE_MODE_FLOW_STEP_UP) == FlowHostChallengeMode.flowStepUp)
        // Outside the REL-ID SDK's modes, which number from 0 (spec §6).
        #expect(FlowHostChallengeMode.flowStepUp >= 1000)
    }
}
