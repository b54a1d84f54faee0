import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// The `device-activation` flow: a known user on a new device. It serves
/// `deviceactivation.join`, which the `mfa` flow calls when an active user
/// sets up on a device not registered for them, and runs that device's
/// whole dialogue:
///
/// `addNewDeviceOptions` → `performVerifyAuth(true)`: an approval
/// notification (Accept / Reject, with the device's name and a verification
/// key) for the user's registered devices, answered on another host and
/// heard through the change feed; or `fallbackNewDeviceActivationFlow`: a
/// code for this device (`getActivationCode`). Then this device's own
/// authentication (`getUserConsentForLDA`, or `getPassword` for the user's
/// password), its key, and the registration. The call finishes `completed`
/// (with the session), `refused` (the user's state forbids it; a `status`
/// for `getUser`), or `stopped` (a `status` and message for `getUser`).
/// A cancelled call (the caller's reset) withdraws the notification.
///
/// Touched only on the host's loop thread.
final class DeviceActivationFlow: ServingFlow {
    /// How long an approval may wait (config `flows.device-activation.approvalSeconds`).
    let approvalSeconds: Int

    let host: FlowHost
    var deviceID = ""
    var ldaCapabilities: [Int] = []
    /// The join being served, if any (one dialogue at a time). Replacing or
    /// clearing it ends its dialogue: what that started reports to no one.
    var joining: Joining? {
        didSet { if oldValue?.dialogue !== joining?.dialogue { oldValue?.dialogue.end() } }
    }

    struct Joining {
        let dialogue: Dialogue
        var call: UInt64 { dialogue.servedCall! }
        let userID: String
        let deviceName: String
        let verificationKey: String
        var stage = Stage.choosing
        var notification: String?
        var timer: UInt64?
    }

    enum Stage {
        case choosing
        case awaitingApproval
        case awaitingCode(verificationKey: String)
        case awaitingConsent(Authorization)
        case awaitingPassword(Authorization)
        /// A first password (challengeMode 1): the user has none.
        case awaitingNewPassword(Authorization)
        /// The password was right but expired (challengeMode 4).
        case awaitingExpiredUpdate(Authorization)
        /// Waiting for the host (a key being made, the registration).
        case working
    }

    /// What lets the device join: an approval's uuid, or a device code's grant.
    enum Authorization {
        case approval(String)
        case grant(String)
    }

    init(host: FlowHost, config: JSON) throws(FlowHostError) {
        self.host = host
        var seconds = 300
        for key in config.keys {
            guard key == "approvalSeconds" else { throw FlowHostError.invalidParams(field: "flows.device-activation.\(key)", reason: "unknown key") }
            guard let value = config[key]?.intValue, (2...3600).contains(value) else {
                throw FlowHostError.invalidParams(field: "flows.device-activation.approvalSeconds", reason: "an integer from 2 to 3600")
            }
            seconds = value
        }
        approvalSeconds = seconds
    }

    func start() {
        let device = host.sessionInfo["device"] ?? .object()
        deviceID = device["deviceID"]?.stringValue ?? ""
        ldaCapabilities = device["ldaCapabilities"]?.elements.compactMap(\.intValue) ?? []
    }

    func serve(_ name: String, params: JSON, call: UInt64) {
        let userID: String, deviceName: String
        do throws(FlowHostError) {
            (userID, deviceName) = (try params.requiredString("userID"), try params.requiredString("deviceName"))
        } catch {
            _ = host.complete(call, .failure(error))
            return
        }
        let key = Self.verificationKey()
        joining = Joining(dialogue: host.beginDialogue(serving: call), userID: userID, deviceName: deviceName, verificationKey: key)
        // The seed's iOS delegate: getAddNewDeviceOptions(userID, newDeviceOptions, challengeInfo), no response or error.
        host.emit(
            "addNewDeviceOptions",
            [
                "userID": .string(userID), "newDeviceOptions": ["ApproveFromRegisteredDevice", "ActivationCode"],
                "challengeInfo": [["key": "VERIFICATION_KEY", "value": .string(key)]],
            ])
    }

    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? {
        guard let current = joining else { throw FlowHostError(.notAllowedNow, message: host.text("no device activation in progress", in: "device-activation")) }
        switch (method, current.stage) {
        case ("performVerifyAuth", .choosing):
            if try params.requiredBool("verifyAuthStatus") { try askForApproval(current) } else { stop(SDKCode.success, host.text("Adding this device was cancelled.", in: "device-activation")) }
        case ("fallbackNewDeviceActivationFlow", .choosing):
            sendCode(current)
        case ("setActivationCode", .awaitingCode(let key)):
            try verifyCode(current, code: try params.requiredString("activationCode"), verificationKey: key)
        case ("resendActivationCode", .awaitingCode):
            sendCode(current)
        case ("setUserConsentForLDA", .awaitingConsent(let authorization)):
            try consent(current, authorization, enroll: try params.requiredBool("shouldEnrollLDA"), type: try params.requiredInt("authenticationType"))
        case ("setPassword", .awaitingPassword(let authorization)):
            try expect(params, mode: ChallengeMode.verify)
            complete(current, authorization, password: try params.requiredString("password"), ldaType: nil)
        case ("setPassword", .awaitingNewPassword(let authorization)):
            try expect(params, mode: ChallengeMode.set)
            complete(current, authorization, password: nil, newPassword: try params.requiredString("password"), ldaType: nil)
        case ("updatePassword", .awaitingExpiredUpdate(let authorization)):
            try expect(params, mode: ChallengeMode.updateOnExpiry)
            complete(
                current, authorization, password: try params.requiredString("currentPassword"), newPassword: try params.requiredString("newPassword"),
                ldaType: nil)
        case ("setPassword", .awaitingExpiredUpdate):
            throw FlowHostError.sdk(
                SDKCode.invalidArguments,
                host.text("An expired password is replaced with updatePassword(currentPassword, newPassword, 4).", in: "device-activation"))
        default:
            throw FlowHostError(.notAllowedNow, message: host.text("not expected now", in: "device-activation"))
        }
        return nil
    }

    private func expect(_ params: JSON, mode: Int) throws(FlowHostError) {
        guard try params.requiredInt("challengeMode") == mode else {
            throw FlowHostError.invalidParams(field: "challengeMode", reason: "this getPassword asked with challengeMode \(mode)")
        }
    }

    /// The open challenge expired: the dialogue stops, its caller says so.
    func notified(topic: String, payload: JSON) {
        switch topic {
        case "notifications.updated": approvalAnswered(payload)
        case "challenge.expired": stop(SDKCode.challengeExpired, host.text("The challenge expired unanswered; start again.", in: "device-activation"))
        default: return
        }
    }

    /// Its caller abandoned the dialogue: the approval request is withdrawn.
    func cancelled(_ call: UInt64) {
        guard let current = joining, current.call == call else { return }
        joining = nil
        endWaiting(current)
    }

    // MARK: Finishing

    func finish(_ outcome: Services.DeviceactivationJoinOutcome) {
        guard let current = joining else { return }
        joining = nil
        endWaiting(current)
        host.complete(current.call, .success(outcome.result))
    }

    /// Stopped: the caller goes back to `getUser` with this status and message.
    func stop(_ status: Int, _ message: String) {
        finish(.stopped(status: status, message: message))
    }

    /// A service outcome that says the user's state forbids this (a block,
    /// an activation meanwhile): the caller maps the status.
    func refused(status: Int) {
        finish(.refused(status: status))
    }
}
