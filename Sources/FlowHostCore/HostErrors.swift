import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// The engine's own refusals (spec §3), as wire errors.
extension RPCError {
    /// A host-to-client request got no answer in time.
    public static let requestTimedOut = RPCError(.requestTimedOut, message: "request timed out")
    /// A request that starts a dialogue while another is in progress.
    public static let dialogueInProgress = RPCError(.dialogueInProgress, message: "Another dialogue is in progress")
    /// A host request the flow gave up on (its dialogue was reset); LSP's RequestCancelled.
    public static let requestCancelled = RPCError(.requestCancelled, message: "request cancelled")
    /// A request other than `initialize` came before `initialize`.
    public static let notInitialized = RPCError(.notInitialized, message: "Server not initialized")
    /// A challenge answer came while no challenge was open.
    public static let noOpenChallenge = RPCError(.noOpenChallenge, message: "No open challenge")
    /// A challenge answer does not fit the open challenge (event or challengeMode).
    public static let challengeMismatch = RPCError(.challengeMismatch, message: "Answer does not match the open challenge")
    /// A request after `shutdown`.
    public static let shuttingDown = RPCError(.shuttingDown, message: "Server is shutting down")

    /// An SDK-level refusal of an API call, as the REL-ID SDK's sync
    /// `RDNAError` would report it.
    public static func sdk(longErrorCode: Int, shortErrorCode: Int, errorString: String) -> RPCError {
        RPCError(
            .sdk(longErrorCode), message: errorString,
            data: ["longErrorCode": .int(longErrorCode), "shortErrorCode": .int(shortErrorCode)])
    }
}
