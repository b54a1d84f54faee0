import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// The approval: a notification for the user's registered devices, its
/// answer heard through the change feed, a deadline.
extension DeviceActivationFlow {
    func askForApproval(_ current: Joining) throws(FlowHostError) {
        let created: Services.NotificationsCreateOutcome
        do {
            created = try host.call(
                Services.NotificationsCreate(
                    userID: current.userID, subject: "Approve a new device?",
                    message: "\(current.deviceName) asks to join your account. Verification key: \(current.verificationKey)",
                    actions: [["label": "Accept", "action": "accept", "authlevel": "1"], ["label": "Reject", "action": "reject", "authlevel": "0"]],
                    expiresInSeconds: max(10, approvalSeconds), kind: "device-approval",
                    context: ["deviceID": .string(deviceID), "verificationKey": .string(current.verificationKey)]))
        } catch where error.code == .tooManyRequests {
            // Too many requests for this user, or from this device: the
            // request is refused and the choice stays open (the code fallback works).
            throw FlowHostError(.tooManyRequests, message: error.message, data: error.data)
        } catch {
            host.log(.error, "asking for an approval failed: \(error.message)")
            return stop(SDKCode.serverFailed, host.text("The approval request could not be sent; try again.", in: "device-activation"))
        }
        joining?.stage = .awaitingApproval
        joining?.notification = created.uuid
        host.subscribe("notifications.updated")  // only while an answer is awaited
        joining?.timer = current.dialogue.setTimer(milliseconds: UInt32(approvalSeconds * 1000)) { [self] in
            guard case .awaitingApproval = joining?.stage else { return }
            joining?.timer = nil
            stop(SDKCode.challengeExpired, host.text("No registered device approved this one in time.", in: "device-activation"))
        }
    }

    /// An answer from one of the user's devices, through the change feed.
    func approvalAnswered(_ payload: JSON) {
        guard let current = joining, case .awaitingApproval = current.stage, let uuid = current.notification,
            payload["uuid"]?.stringValue == uuid
        else { return }
        var answered = current
        answered.notification = nil  // answered: nothing to withdraw
        joining?.notification = nil
        joining?.timer = nil
        endWaiting(answered)
        if payload["action"]?.stringValue == "accept" {
            authenticate(.approval(uuid))
        } else {
            stop(SDKCode.authenticationFailed, host.text("Adding this device was rejected on one of your registered devices.", in: "device-activation"))
        }
    }

    /// No longer waiting for an answer: the feed subscription and the
    /// deadline end; a request nobody answered is withdrawn.
    func endWaiting(_ current: Joining) {
        host.unsubscribe("notifications.updated")
        if let timer = current.timer { current.dialogue.cancelTimer(timer) }
        guard let uuid = current.notification else { return }
        do { _ = try host.call(Services.NotificationsWithdraw(uuid: uuid)) } catch {
            host.log(.error, "withdrawing an approval request failed: \(error.message)")
        }
    }

    /// Six characters both devices show, so the user can tell the request is theirs.
    static func verificationKey() -> String {
        let alphabet = Array("ABCDEFGHJKMNPQRSTVWXYZ23456789")
        return SecureRandom.string(length: 6, alphabet: alphabet)
    }
}
