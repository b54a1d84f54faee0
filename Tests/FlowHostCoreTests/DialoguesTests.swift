import FlowHostVocabulary
import FlowJSON
@testable import FlowHostCore
import Testing

/// The engine's `Dialogues` alone: what is open, whose it is, and when a
/// method may start a dialogue (or replace its own stale one).
@Suite struct DialoguesTests {
    let h: Harness
    var probe: LoadedPlugin { h.engine.plugins[0] }
    var twin: LoadedPlugin { h.engine.plugins[1] }
    let secret = EventSpec(name: "getSecret", summary: "", params: nil, isChallenge: true)

    init() {
        h = Harness(ProbeFlow.self, TwinFlow.self)
        h.initialize()
    }

    @Test func aRetryReplacesItsOwnStaleDialogueAndNothingElse() throws {
        let dialogues = h.engine.dialogues
        #expect(dialogues.admitStart("probe.start", by: probe) == nil, "nothing open")
        dialogues.openChallenge("getSecret", params: ["challengeMode": 3], owner: probe, spec: secret)
        dialogues.started("probe.start", by: probe)
        #expect(dialogues.owner() === probe)
        let refused = try #require(dialogues.admitStart("probe.other", by: probe), "another method never cuts it short")
        #expect(refused.code == .dialogueInProgress)
        #expect(dialogues.admitStart("probe.start", by: twin) != nil, "nor another flow")
        #expect(dialogues.open() != nil)
        #expect(dialogues.admitStart("probe.start", by: probe) == nil, "the same action, retried, replaces it")
        #expect(dialogues.open() == nil, "the stale challenge closed")
        dialogues.forgetEndedStarter()
        #expect(dialogues.router.challenge.starter == nil)
    }

    @Test func aRestingChallengeIsNoDialogue() {
        let dialogues = h.engine.dialogues
        var resting = secret
        resting.isResting = true
        dialogues.openChallenge("getSecret", params: .object(), owner: probe, spec: resting)
        #expect(dialogues.open() == nil)
        #expect(dialogues.admitStart("probe.start", by: twin) == nil)
    }
}
