import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// A challenge event the client has to answer.
struct OpenChallenge {
    let event: String
    let challengeMode: Int?
    let owner: LoadedPlugin
    /// The service call the owner was serving when it asked, if any:
    /// the challenge belongs to that call and ends with it.
    let call: UInt64?
    let serial: Int
    /// A resting challenge (`getUser`) is where a flow waits between
    /// dialogues: it never expires and is not a dialogue in progress.
    let isResting: Bool

    var description: JSON {
        ["event": .string(event), "challengeMode": .optional(challengeMode, JSON.int), "flow": .string(owner.name)]
    }

    /// The same, as `-32007` names the dialogue in progress (its own key order, kept).
    var inProgressDescription: JSON {
        ["flow": .string(owner.name), "event": .string(event), "challengeMode": .optional(challengeMode, JSON.int)]
    }

    /// What a flow hears when its challenge ends unanswered.
    var notice: JSON { ["event": .string(event), "challengeMode": .optional(challengeMode, JSON.int)] }
}

/// The one challenge open on this host (a newer one replaces it), and the
/// flow method that started the dialogue in progress. Knows nothing of
/// flows beyond what a challenge records.
///
/// Owned by the engine; touched on the loop thread only.
struct ChallengeSlot {
    private(set) var current: OpenChallenge?
    /// Bumped whenever a challenge opens, to tell whether a handler opened one.
    private(set) var serial = 0
    /// The `startsDialogue` method that started the dialogue in progress, so
    /// a retry of that same action may replace it; cleared once nothing is open.
    var starter: (plugin: ObjectIdentifier, method: String)?

    /// The open challenge unless it is a resting one.
    var inProgress: OpenChallenge? {
        guard let current, !current.isResting else { return nil }
        return current
    }

    /// Opens a challenge (replacing any other); returns its serial.
    mutating func open(event: String, challengeMode: Int?, owner: LoadedPlugin, call: UInt64?, isResting: Bool) -> Int {
        serial += 1
        current = OpenChallenge(event: event, challengeMode: challengeMode, owner: owner, call: call, serial: serial, isResting: isResting)
        return serial
    }

    mutating func close() { current = nil }

    /// Closes the challenge if `plugin` opened it.
    mutating func close(ownedBy plugin: LoadedPlugin) {
        if current?.owner === plugin { current = nil }
    }

    /// Closes the challenge if it belongs to `call`.
    mutating func close(belongingTo call: UInt64) {
        if current?.call == call { current = nil }
    }

    /// Closes and returns the challenge with `serial`, if it is still open.
    mutating func close(serial: Int) -> OpenChallenge? {
        guard let current, current.serial == serial else { return nil }
        self.current = nil
        return current
    }

    /// Closes and returns the challenge unless it is a resting one.
    mutating func closeInProgress() -> OpenChallenge? {
        guard let open = inProgress else { return nil }
        current = nil
        return open
    }

    func isOpen(serial: Int) -> Bool { current?.serial == serial }

    /// Whether `method` (which answers `answers`, and which the owner
    /// declares when `ownerDeclares`) may answer the open challenge now.
    func admit(_ method: String, answers: [String], ownerDeclares: Bool, challengeMode given: Int?) -> Result<OpenChallenge, FlowHostError> {
        guard let open = current else {
            return .failure(FlowHostError.noOpenChallenge.withMessage("No open challenge for \(method)"))
        }
        guard answers.contains(open.event), ownerDeclares else {
            return .failure(
                FlowHostError.challengeMismatch.withMessage("\(method) does not answer the open challenge \(open.event)")
                    .withData(["open": open.description]))
        }
        if let given, let expected = open.challengeMode, given != expected {
            return .failure(
                FlowHostError.challengeMismatch.withMessage("challengeMode \(given) does not match the open challenge's \(expected)")
                    .withData(["open": open.description]))
        }
        return .success(open)
    }
}
