/// FlowHost's own `challengeMode` values, outside the REL-ID SDK's
/// (`RDNAChallengeOpMode` numbers its modes from 0 and uses at least 0 to
/// 16): spec §6, "Challenge modes".
public enum FlowHostChallengeMode {
    /// A step-up (`stepup.authenticate`) asked for by a flow that is not
    /// built in: its `getPassword` carries this mode, a verify mode
    /// answered with `setPassword(password, 1000)`. The SDK's modes each
    /// name one of the SDK's own dialogues, which only the built-in flows run.
    public static let flowStepUp = 1000
}
