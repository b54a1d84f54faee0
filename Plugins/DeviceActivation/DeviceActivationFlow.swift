import FlowHostSDK
import FlowJSON

/// The `device-activation` flow: a known user on a new device, approved from
/// one of their registered devices. It serves `deviceactivation.approve`,
/// which the `mfa` flow calls when an active user sets up on a device not
/// registered for them:
///
/// `addNewDeviceOptions` → `performVerifyAuth(true)` → an approval
/// notification (Accept / Reject, with the device's name and a verification
/// key) for the user's registered devices → the answer, from another host,
/// arrives through the change feed → the call finishes `approved` (with the
/// approval, which completes one activation), `rejected`, `expired` or
/// `cancelled`. `performVerifyAuth(false)` cancels; a reset withdraws the
/// notification.
///
/// Touched only on the host's loop thread.
final class DeviceActivationFlow: ServingFlow {
    static let declaration = FlowDeclaration(
        name: "device-activation", version: "1.0.0",
        methods: [
            FlowMethod(
                "performVerifyAuth", summary: "Answers addNewDeviceOptions: true asks the user's registered devices to approve; false cancels.",
                params: [FlowParam("verifyAuthStatus", .boolean)], answers: ["addNewDeviceOptions"]),
            FlowMethod(
                "fallbackNewDeviceActivationFlow", summary: "Answers addNewDeviceOptions: join with an activation code sent to the user instead.",
                answers: ["addNewDeviceOptions"]),
        ],
        events: [
            FlowEvent(
                "addNewDeviceOptions", summary: "The user is active on other devices: how this one may join (newDeviceOptions, challengeInfo).",
                challenge: true)
        ],
        services: [
            FlowService(
                "deviceactivation.approve", summary: "Asks the user's registered devices to approve this one.",
                params: [FlowParam("userID", .string, format: .userID), FlowParam("deviceName", .string)])
        ],
        uses: ["notifications.create", "notifications.withdraw"])

    /// How long an approval may wait (config `flows.device-activation.approvalSeconds`).
    let approvalSeconds: Int

    let host: FlowHost
    var deviceID = ""
    var waiting: Waiting?

    struct Waiting {
        let call: UInt64
        let userID: String
        let deviceName: String
        let verificationKey: String
        var notification: String?
        var timer: UInt64?
    }

    init(host: FlowHost, config: JSON) throws(FlowError) {
        self.host = host
        var seconds = 300
        for key in config.keys {
            guard key == "approvalSeconds" else { throw FlowError.invalidParams(field: "flows.device-activation.\(key)", reason: "unknown key") }
            guard let value = config[key]?.intValue, (2...3600).contains(value) else {
                throw FlowError.invalidParams(field: "flows.device-activation.approvalSeconds", reason: "an integer from 2 to 3600")
            }
            seconds = value
        }
        approvalSeconds = seconds
    }

    func start() {
        deviceID = host.sessionInfo["device"]?["deviceID"]?.stringValue ?? ""
    }

    func serve(_ name: String, params: JSON, call: UInt64) {
        let userID = params["userID"]!.stringValue!
        let key = Self.verificationKey()
        waiting = Waiting(call: call, userID: userID, deviceName: params["deviceName"]!.stringValue!, verificationKey: key)
        host.emit(
            "addNewDeviceOptions",
            SDKPayload.event(
                workflow: "AdditionalDeviceActivation", challengeInfo: [("VERIFICATION_KEY", key)],
                fields: ["userID": .string(userID), "newDeviceOptions": ["ApproveFromRegisteredDevice", "ActivationCode"]]))
    }

    func handle(method: String, params: JSON) throws(FlowError) -> JSON? {
        guard let current = waiting else { throw FlowError(code: -32006, message: "no device activation in progress") }
        if method == "fallbackNewDeviceActivationFlow" {
            finish(["outcome": "fallback"])
            return nil
        }
        guard method == "performVerifyAuth" else { throw FlowError.methodNotFound }
        guard params["verifyAuthStatus"]!.boolValue! else {
            finish(["outcome": "cancelled"])
            return nil
        }
        let created: JSON
        do {
            created = try host.call(
                "notifications.create",
                [
                    "userID": .string(current.userID), "subject": "Approve a new device?",
                    "message": .string("\(current.deviceName) asks to join your account. Verification key: \(current.verificationKey)"),
                    "actions": [["label": "Accept", "action": "accept", "authlevel": "1"], ["label": "Reject", "action": "reject", "authlevel": "0"]],
                    "expiresInSeconds": .int(max(10, approvalSeconds)), "kind": "device-approval",
                    "context": ["deviceID": .string(deviceID), "verificationKey": .string(current.verificationKey)],
                ])
        } catch {
            finish(["outcome": "failed"])
            throw error
        }
        waiting?.notification = created["uuid"]?.stringValue
        host.subscribe("notifications.updated")  // only while an answer is awaited
        let call = current.call
        waiting?.timer = host.setTimer(milliseconds: UInt32(approvalSeconds * 1000)) { [self] in
            guard waiting?.call == call else { return }
            finish(["outcome": "expired"])
        }
        return nil
    }

    /// An answer from one of the user's devices, through the change feed.
    func notified(topic: String, payload: JSON) {
        guard topic == "notifications.updated", let current = waiting, let uuid = current.notification,
            payload["uuid"]?.stringValue == uuid
        else { return }
        if payload["action"]?.stringValue == "accept" {
            finish(["outcome": "approved", "approval": .string(uuid)], withdraw: false)
        } else {
            finish(["outcome": "rejected"], withdraw: false)
        }
    }

    /// Its caller abandoned the dialogue: the approval request is withdrawn.
    func cancelled(_ call: UInt64) {
        guard let current = waiting, current.call == call else { return }
        waiting = nil
        host.unsubscribe("notifications.updated")
        withdraw(current)
    }

    func finish(_ result: JSON, withdraw shouldWithdraw: Bool = true) {
        guard let current = waiting else { return }
        waiting = nil
        host.unsubscribe("notifications.updated")
        if shouldWithdraw { withdraw(current) }
        if let timer = current.timer { host.cancelTimer(timer) }
        host.complete(current.call, .success(result))
    }

    private func withdraw(_ current: Waiting) {
        guard let uuid = current.notification else { return }
        do { _ = try host.call("notifications.withdraw", ["uuid": .string(uuid)]) } catch {
            host.log(.error, "withdrawing an approval request failed: \(error.message)")
        }
    }

    /// Six characters both devices show, so the user can tell the request is theirs.
    static func verificationKey() -> String {
        let alphabet = Array("ABCDEFGHJKMNPQRSTVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<6).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
