import FlowHostSDK
import FlowHostServiceTypes

/// `terms.withdraw`: the logged-in user takes their acceptance back. It is
/// the sensitive step, so the flow asks twice: the user confirms
/// (`getWithdrawalConsent`), then proves who they are again (a step-up,
/// which the built-in step-up flow runs with the client). The withdrawal's
/// `Dialogue` holds what it started: once it ends (declined, expired,
/// reset), a late outcome of its step-up reaches no one.
extension TermsFlow {
    struct Withdrawal {
        let dialogue: Dialogue
        let userID: String
        /// The version of the acceptance asked about: the one withdrawn, or none.
        let record: Int
    }

    func withdraw() throws(FlowHostError) {
        let userID = try host.loggedInUser()
        guard let record = try accepted(userID) else { throw FlowHostError(.nothingToChange, message: "\(userID) has accepted no terms") }
        withdrawing?.dialogue.end(abandoning: true)  // a retry replaces the last
        withdrawing = Withdrawal(dialogue: host.beginDialogue(), userID: userID, record: record.version)
        host.emit("getWithdrawalConsent", ["userID": .string(userID), "version": record.value["version"] ?? .null])
    }

    func withdrawalConfirmed(_ confirmed: Bool) throws(FlowHostError) {
        guard let current = withdrawing else { throw FlowHostError(.notAllowedNow, message: "no withdrawal is being asked for") }
        guard confirmed else { return endWithdrawal("declined") }
        current.dialogue.stepUp(reason: "terms-withdraw") { [self] outcome in
            switch outcome {
            case .success(.authenticated): remove(current)
            case .failure(let error) where error.isCancellation: endWithdrawal(nil)  // a reset: nothing to say
            default: endWithdrawal("notVerified")  // the session may have ended too: the host says so
            }
        }
    }

    /// Deletes the acceptance asked about, and only that one: `expectVersion`
    /// refuses it if another device accepted anew meanwhile.
    private func remove(_ current: Withdrawal) {
        let delete: JSON = [
            "op": "delete", "collection": .string(Self.collection), "key": .string(current.userID), "expectVersion": .int(current.record),
        ]
        do throws(FlowHostError) {
            _ = try host.call(Services.RecordsApply(operations: [delete]))
        } catch {
            return endWithdrawal(error.code == .versionConflict ? "changed" : "failed")
        }
        withdrawing = nil
        current.dialogue.end()
        host.emit("onTermsWithdrawn", ["userID": .string(current.userID)])
    }

    /// The acceptance stays: says why (`reason`), or nothing after a reset.
    func endWithdrawal(_ reason: String?) {
        guard let current = withdrawing else { return }
        withdrawing = nil
        current.dialogue.end()
        if let reason { host.emit("onTermsKept", ["userID": .string(current.userID), "reason": .string(reason)]) }
    }
}
