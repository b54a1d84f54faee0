import FlowHostVocabulary
import FlowJSON

/// The host services' own refusals, beside the contract's common ones.
extension FlowHostError {
    public static let unknownUser = FlowHostError(.unknownUser, message: "unknown user")
    /// The store's server cannot be reached now; nothing was written.
    public static let storeUnreachable = FlowHostError(
        .storeUnreachable, message: "The store is unreachable; nothing was changed. Try again.", data: ["retryAfterSeconds": 1])
}
