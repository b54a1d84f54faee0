import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// "My devices": `getRegisteredDeviceDetails(userID)` and
/// `updateDeviceDetails(userID, devicesJson)`, for the logged-in user only
/// (another user's id: 101, whether or not that user exists). A rename is
/// one call; a deletion is checked first (nothing to ask a password for
/// when it would be refused), then the step-up (challengeMode 3, as a
/// notification's action), then the host's `devices.update`, which revokes
/// the key and ends the device's sessions on every host.
extension StepUpFlow {
    func getRegisteredDeviceDetails(_ userID: String) throws(FlowHostError) {
        let user = try host.loggedInUser()
        guard userID == user else {
            host.emit("onGetRegistredDeviceDetails", SDKPayload.serverCall(statusCode: SDKCode.unknownUser, message: notYours))
            return
        }
        let listed = try host.call(Services.DevicesList(userID: user, deviceID: deviceID))
        host.emit("onGetRegistredDeviceDetails", SDKPayload.serverCall(responseData: listed.result))
    }

    var notYours: String { host.text("Devices can be listed and changed only for the user logged in on this device.", in: "step-up") }

    /// The one change `devicesJson` asks for: the SDK's `{device: [...]}`,
    /// where the device to change has `status` "Update" (with its new
    /// `devName`) or "Delete"; the others, as listed, change nothing.
    struct DeviceChange {
        let devUUID: String
        let delete: Bool
        let devName: String?
    }

    static func deviceChange(_ devicesJson: String) throws(FlowHostError) -> DeviceChange {
        let field = "devicesJson"
        let parsed: JSON
        do { parsed = try JSON.parse(devicesJson) } catch { throw FlowHostError.invalidParams(field: field, reason: "not JSON") }
        guard let items = parsed["device"], items.kind == .array else { throw FlowHostError.invalidParams(field: field, reason: "needs a device array") }
        let changes = items.elements.filter { ["UPDATE", "DELETE"].contains($0["status"]?.stringValue?.uppercased() ?? "") }
        guard changes.count == 1, let item = changes.first else {
            throw FlowHostError.invalidParams(field: field, reason: "exactly one device with status Update or Delete (one change a call)")
        }
        guard let uuid = item["devUUID"]?.stringValue, !uuid.isEmpty else { throw FlowHostError.invalidParams(field: "\(field).device.devUUID", reason: "missing") }
        let delete = item["status"]?.stringValue?.uppercased() == "DELETE"
        let name = item["devName"]?.stringValue
        if !delete && (name ?? "").isEmpty { throw FlowHostError.invalidParams(field: "\(field).device.devName", reason: "an Update needs the new name") }
        return DeviceChange(devUUID: uuid, delete: delete, devName: name)
    }

    func updateDeviceDetails(_ userID: String, devicesJson: String) throws(FlowHostError) {
        let user = try host.loggedInUser()
        let change = try Self.deviceChange(devicesJson)
        guard userID == user else { return deviceUpdated(change.devUUID, status: SDKCode.unknownUser, message: notYours) }
        guard change.delete else {
            // Synchronous: a name the host refuses (its device-name rule) is this call's -32602.
            return deviceUpdated(change.devUUID, try host.call(deviceUpdate(user, change)))
        }
        // Refused before any password is asked when the change cannot be made.
        let listed = try host.call(Services.DevicesList(userID: user, deviceID: deviceID))
        if listed.deviceManagementCoolingPeriodEndTimestamp > 0 {
            return deviceUpdated(change.devUUID, .coolingPeriod(until: listed.deviceManagementCoolingPeriodEndTimestamp))
        }
        guard listed.device.elements.contains(where: { $0["devUUID"]?.stringValue == change.devUUID }) else {
            return deviceUpdated(change.devUUID, .unknownDevice)
        }
        deviceChangeDialogue?.end()
        let dialogue = host.beginDialogue()
        deviceChangeDialogue = dialogue
        dialogue.stepUp(Services.StepupAuthenticate(challengeMode: ChallengeMode.stepUp, reason: "device-delete")) { [self] outcome in
            dialogue.end()
            deviceChangeDialogue = nil
            switch outcome {
            case .success(.authenticated): applyDeviceChange(user, change)
            case .success(let failed): deviceStepUpFailed(change.devUUID, failed)
            case .failure(let error) where error.isCancellation: return  // abandoned: nothing changed, nothing said
            case .failure(let error):
                host.log(.error, "stepup.authenticate failed: \(error.message)")
                deviceUpdated(change.devUUID, status: SDKCode.serverFailed, message: host.text("Step-up failed on the server side; nothing changed.", in: "step-up"))
            }
        }
    }

    /// The statuses and the session's end are StepUpOutcome's; the words are the device's.
    func deviceStepUpFailed(_ uuid: String, _ outcome: StepUpOutcome) {
        let status = outcome.status
        switch outcome {
        case .authenticated: return
        case .exhausted: deviceUpdated(uuid, status: status, message: host.text("Too many wrong attempts: you are logged off.", in: "step-up"))
        case .expired: deviceUpdated(uuid, status: status, message: host.text("Your password has expired: you are logged off.", in: "step-up"))
        case .ldaCancelled:
            deviceUpdated(uuid, status: status, message: host.text("Local device authentication was cancelled; nothing changed.", in: "step-up"),
                          errorCode: SDKCode.ldaCancelledNoFallback, errorString: host.text("LDA cancelled", in: "step-up"))
        case .refused: deviceUpdated(uuid, status: status, message: host.text("This device could not prove who you are; nothing changed.", in: "step-up"))
        case .cancelled: deviceUpdated(uuid, status: status, message: host.text("The step-up expired unanswered; nothing changed.", in: "step-up"))
        case .biometricUnavailable, .biometricCancelled, .biometricFailed, .unknown:
            deviceUpdated(uuid, status: StepUpOutcome.unknown(nil).status, message: host.text("Step-up failed on the server side; nothing changed.", in: "step-up"))
        }
    }

    func deviceUpdate(_ user: String, _ change: DeviceChange) -> Services.DevicesUpdate {
        Services.DevicesUpdate(
            userID: user, deviceID: deviceID, devUUID: change.devUUID, action: change.delete ? "delete" : "rename", devName: change.devName)
    }

    /// The deletion, once the step-up passed: whatever fails is reported, the dialogue being over.
    func applyDeviceChange(_ user: String, _ change: DeviceChange) {
        do { deviceUpdated(change.devUUID, try host.call(deviceUpdate(user, change)), deleted: change.delete) } catch {
            host.log(.error, "devices.update failed: \(error.message)")
            deviceUpdated(change.devUUID, status: SDKCode.serverFailed, message: host.text("The device could not be changed; nothing changed.", in: "step-up"))
        }
    }

    func deviceUpdated(_ uuid: String, _ outcome: Services.DevicesUpdateOutcome, deleted: Bool = false) {
        switch outcome {
        case .changed: deviceUpdated(uuid, status: SDKCode.success, message: deleted ? host.text("The device has been deleted.", in: "step-up") : host.text("The device has been renamed.", in: "step-up"))
        case .coolingPeriod(let until):
            deviceUpdated(
                uuid, status: SDKCode.deviceCoolingPeriod,
                message: host.text("A device joined your account recently: devices cannot be changed until the cooling period ends.", in: "step-up"), coolingPeriodEnd: until)
        case .unknownDevice: deviceUpdated(uuid, status: SDKCode.deviceUpdateFailed, message: host.text("No such device is registered for you.", in: "step-up"))
        case .lastDevice:
            deviceUpdated(
                uuid, status: SDKCode.deviceUpdateFailed,
                message: host.text("This is your only active device: deleting it would leave no way to log in. Activate another device first.", in: "step-up"))
        }
    }

    /// `onUpdateDeviceDetails`, in the SDK's server-call envelope: ResponseData
    /// `{status_code, message, dev_uuid}`, and the cooling period's end with 146.
    func deviceUpdated(
        _ uuid: String, status: Int, message: String, coolingPeriodEnd: Int? = nil, errorCode: Int = SDKCode.noError, errorString: String = "Success"
    ) {
        let data: JSON = ["status_code": .int(status), "message": .string(message), "dev_uuid": .string(uuid)]
        if let coolingPeriodEnd { data["deviceManagementCoolingPeriodEndTimestamp"] = .int(coolingPeriodEnd) }
        host.emit(
            "onUpdateDeviceDetails",
            SDKPayload.serverCall(statusCode: status, message: message, responseData: data, errorCode: errorCode, errorString: errorString))
    }
}
