import FlowHostVocabulary
import FlowJSON

/// The `challengeMode` a flow from elsewhere may give a built-in flow's
/// service (spec §6, "Challenge modes"). The REL-ID SDK's modes each name
/// one of the SDK's own dialogues (a notification's approval, a signing),
/// which only the built-in flows run; a flow that is not built in asks
/// with FlowHost's own, `FlowHostChallengeMode.flowStepUp`. Without the
/// rule its number reached the client in `getPassword` as given: one the
/// client has no meaning for, or one that names another dialogue.
enum ForeignChallengeMode {
    /// The refusal of `params` for a call from `caller` to `provider`, or nil.
    static func refusal(_ params: JSON, caller: LoadedPlugin?, provider: LoadedPlugin) -> FlowHostError? {
        guard provider.origin == .builtIn, let caller, caller.origin != .builtIn,
            let mode = params["challengeMode"], mode.intValue != FlowHostChallengeMode.flowStepUp
        else { return nil }
        return .invalidParams(
            field: "challengeMode",
            reason: "a flow that is not built in asks with challengeMode \(FlowHostChallengeMode.flowStepUp), FlowHost's own (spec §6)")
    }
}
