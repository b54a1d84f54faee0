import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// The engine's own refusals (spec §3), as wire errors.
extension FlowHostError {
    /// A host-to-client request got no answer in time.
    public static let requestTimedOut = FlowHostError(.requestTimedOut, message: "request timed out")
    /// A request that starts a dialogue while another is in progress.
    public static let dialogueInProgress = FlowHostError(.dialogueInProgress, message: "Another dialogue is in progress")
    /// A host request the flow gave up on (its dialogue was reset); LSP's RequestCancelled.
    public static let requestCancelled = FlowHostError(.requestCancelled, message: "request cancelled")
    /// A request other than `initialize` came before `initialize`.
    public static let notInitialized = FlowHostError(.notInitialized, message: "Server not initialized")
    /// A challenge answer came while no challenge was open.
    public static let noOpenChallenge = FlowHostError(.noOpenChallenge, message: "No open challenge")
    /// A challenge answer does not fit the open challenge (event or challengeMode).
    public static let challengeMismatch = FlowHostError(.challengeMismatch, message: "Answer does not match the open challenge")
    /// A request after `shutdown`.
    public static let shuttingDown = FlowHostError(.shuttingDown, message: "Server is shutting down")
}
