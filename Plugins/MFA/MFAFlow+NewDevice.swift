import FlowHostSDK
import FlowJSON

/// A known user on a new device (the `device-activation` flow serves the
/// approval): approved from a registered device, then this device's own
/// authentication (LDA consent, or the user's password), its key, and
/// `onUserLoggedIn` with `AdditionalDeviceActivation`.
extension MFAFlow {
    static let additionalDevice = "AdditionalDeviceActivation"

    func askForApproval(_ userID: String) {
        stage = .awaitingApproval(userID: userID)
        let asked = generation
        host.call("deviceactivation.approve", ["userID": .string(userID), "deviceName": .string(defaultDeviceName)]) { [self] outcome in
            guard asked == generation else { return }
            switch outcome {
            case .success(let result):
                switch result["outcome"]?.stringValue {
                case "approved": authenticateNewDevice(userID, approval: result["approval"]?.stringValue ?? "")
                case "rejected": askForUser(status: 102, message: "Adding this device was rejected on one of your registered devices.")
                case "expired": askForUser(status: 121, message: "No registered device approved this one in time.")
                case "cancelled": askForUser(status: 100, message: "Adding this device was cancelled.")
                default: unexpected("deviceactivation.approve", result)
                }
            case .failure(let error) where error.code == -32800:
                return  // abandoned by a reset: nothing to say
            case .failure(let error) where error.code == -32601:
                // No device-activation flow loaded: the device cannot join this way.
                audit(userID, "login.device", "not-registered")
                askForUser(status: 126, message: Self.refusalMessage(126))
            case .failure(let error):
                host.log(.error, "device activation failed: \(error.message)")
                askForUser(status: 114, message: "The server could not complete the request; try again.")
            }
        }
    }

    func authenticateNewDevice(_ userID: String, approval: String) {
        if let type = ldaCapabilities.first {
            stage = .awaitingNewDeviceConsent(userID: userID, approval: approval)
            host.emit(
                "getUserConsentForLDA",
                SDKPayload.event(
                    workflow: Self.additionalDevice,
                    fields: ["userID": .string(userID), "challengeMode": .int(ChallengeMode.set), "authenticationType": .int(type)]))
        } else {
            askForNewDevicePassword(userID, approval: approval)
        }
    }

    func askForNewDevicePassword(_ userID: String, approval: String) {
        stage = .awaitingNewDevicePassword(userID: userID, approval: approval)
        host.emit(
            "getPassword",
            SDKPayload.event(
                workflow: Self.additionalDevice, challengeInfo: [("ENABLE_FORGOT_PASSWORD", "false")],
                fields: ["userID": .string(userID), "challengeMode": .int(ChallengeMode.verify), "attemptsLeft": .int(passwordAttempts(userID))]))
    }

    func newDeviceConsent(_ userID: String, approval: String, enroll: Bool, authenticationType: Int) throws(FlowError) {
        guard enroll else { return askForNewDevicePassword(userID, approval: approval) }
        guard ldaCapabilities.contains(authenticationType) else {
            throw FlowError.invalidParams(field: "authenticationType", reason: "not one of this device's ldaCapabilities")
        }
        authenticateWithLDA(userID, type: authenticationType, reason: "enroll") { [self] ok in
            if ok { completeNewDevice(userID, approval: approval, password: nil, ldaType: authenticationType) } else {
                askForNewDevicePassword(userID, approval: approval)
            }
        }
    }

    func completeNewDevice(_ userID: String, approval: String, password: String?, ldaType: Int?) {
        createDeviceKey(userID) { [self] key in
            let params: JSON = [
                "userID": .string(userID), "deviceID": .string(deviceID), "deviceName": .string(defaultDeviceName),
                "approval": .string(approval), "workflow": .string(Self.additionalDevice), "keyID": key["keyID"] ?? "",
                "publicKey": key["publicKey"] ?? "", "custody": key["custody"] ?? "",
            ]
            if let password { params["password"] = .string(password) }
            if let ldaType { params["ldaType"] = .int(ldaType) }
            let outcome: JSON
            do throws(FlowError) { outcome = try host.call("activation.completeApproved", params) } catch {
                host.log(.error, "adding a device failed: \(error.message)")
                return askForUser(status: 114, message: "Adding this device failed on the server side; try again.")
            }
            switch outcome["outcome"]?.stringValue {
            case "completed": loggedIn(userID, sessionID: outcome["sessionID"]?.stringValue ?? "", workflow: Self.additionalDevice)
            case "wrong": askForUser(status: 102, message: "Invalid password: ask your registered device to approve again.")
            case "refused": refused(outcome)
            default: unexpected("activation.completeApproved", outcome)
            }
        }
    }

    func passwordAttempts(_ userID: String) -> Int {
        ((try? userState(userID)) ?? nil)?["passwordAttemptsLeft"]?.intValue ?? 0
    }
}
