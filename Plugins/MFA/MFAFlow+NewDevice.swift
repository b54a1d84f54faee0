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
                case "approved": authenticateNewDevice(userID, authorization: .approval(result["approval"]?.stringValue ?? ""))
                case "fallback": sendDeviceCode(userID)
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

    /// The fallback: a code for this device, through the operator's delivery.
    func sendDeviceCode(_ userID: String) {
        let outcome: JSON
        do { outcome = try host.call("activation.sendDeviceCode", ["userID": .string(userID), "deviceID": .string(deviceID)]) } catch {
            host.log(.error, "sending a device code failed: \(error.message)")
            return askForUser(status: 114, message: "The code could not be sent; try again.")
        }
        switch outcome["outcome"]?.stringValue {
        case "sent":
            let key = outcome["verificationKey"]?.stringValue ?? ""
            stage = .awaitingDeviceCode(userID: userID, verificationKey: key)
            host.emit(
                "getActivationCode",
                SDKPayload.event(
                    workflow: Self.additionalDevice,
                    fields: ["userID": .string(userID), "verificationKey": .string(key), "attemptsLeft": outcome["attemptsLeft"] ?? 0]))
        case "tooSoon":
            askForUser(status: 100, message: "A code was sent moments ago; try again in \(outcome["retryAfterSeconds"]?.intValue ?? 0) seconds.")
        case "refused": refused(outcome)
        default: unexpected("activation.sendDeviceCode", outcome)
        }
    }

    func setDeviceCode(_ userID: String, code: String, verificationKey: String) throws(FlowError) {
        let outcome = try host.call("activation.verifyDeviceCode", ["userID": .string(userID), "code": .string(code), "deviceID": .string(deviceID)])
        switch outcome["outcome"]?.stringValue {
        case "accepted":
            authenticateNewDevice(userID, authorization: .grant(outcome["grant"]?.stringValue ?? ""))
        case "wrong":
            host.emit(
                "getActivationCode",
                SDKPayload.event(
                    status: 106, message: "Invalid activation code.", workflow: Self.additionalDevice,
                    fields: ["userID": .string(userID), "verificationKey": .string(verificationKey), "attemptsLeft": outcome["attemptsLeft"] ?? 0]))
        case "expired":
            askForUser(status: 106, message: "The code no longer works; ask for a new one.")
        case "refused": refused(outcome)
        default: unexpected("activation.verifyDeviceCode", outcome)
        }
    }

    func authenticateNewDevice(_ userID: String, authorization: NewDeviceAuthorization) {
        if let type = ldaCapabilities.first {
            stage = .awaitingNewDeviceConsent(userID: userID, authorization: authorization)
            host.emit(
                "getUserConsentForLDA",
                SDKPayload.event(
                    workflow: Self.additionalDevice,
                    fields: ["userID": .string(userID), "challengeMode": .int(ChallengeMode.set), "authenticationType": .int(type)]))
        } else {
            askForNewDevicePassword(userID, authorization: authorization)
        }
    }

    func askForNewDevicePassword(_ userID: String, authorization: NewDeviceAuthorization) {
        stage = .awaitingNewDevicePassword(userID: userID, authorization: authorization)
        host.emit(
            "getPassword",
            SDKPayload.event(
                workflow: Self.additionalDevice, challengeInfo: [("ENABLE_FORGOT_PASSWORD", "false")],
                fields: ["userID": .string(userID), "challengeMode": .int(ChallengeMode.verify), "attemptsLeft": .int(passwordAttempts(userID))]))
    }

    func newDeviceConsent(_ userID: String, authorization: NewDeviceAuthorization, enroll: Bool, authenticationType: Int) throws(FlowError) {
        guard enroll else { return askForNewDevicePassword(userID, authorization: authorization) }
        guard ldaCapabilities.contains(authenticationType) else {
            throw FlowError.invalidParams(field: "authenticationType", reason: "not one of this device's ldaCapabilities")
        }
        authenticateWithLDA(userID, type: authenticationType, reason: "enroll") { [self] ok in
            if ok { completeNewDevice(userID, authorization: authorization, password: nil, ldaType: authenticationType) } else {
                askForNewDevicePassword(userID, authorization: authorization)
            }
        }
    }

    func completeNewDevice(_ userID: String, authorization: NewDeviceAuthorization, password: String?, ldaType: Int?) {
        createDeviceKey(userID) { [self] key in
            let params: JSON = [
                "userID": .string(userID), "deviceID": .string(deviceID), "deviceName": .string(defaultDeviceName),
                "workflow": .string(Self.additionalDevice), "keyID": key["keyID"] ?? "", "publicKey": key["publicKey"] ?? "",
                "custody": key["custody"] ?? "",
            ]
            params[authorization.field.0] = .string(authorization.field.1)
            if let password { params["password"] = .string(password) }
            if let ldaType { params["ldaType"] = .int(ldaType) }
            let outcome: JSON
            do throws(FlowError) { outcome = try host.call("activation.completeApproved", params) } catch {
                host.log(.error, "adding a device failed: \(error.message)")
                return askForUser(status: 114, message: "Adding this device failed on the server side; try again.")
            }
            switch outcome["outcome"]?.stringValue {
            case "completed": loggedIn(userID, sessionID: outcome["sessionID"]?.stringValue ?? "", workflow: Self.additionalDevice)
            case "wrong": askForUser(status: 102, message: "Invalid password: start adding this device again.")
            case "refused": refused(outcome)
            default: unexpected("activation.completeApproved", outcome)
            }
        }
    }

    func passwordAttempts(_ userID: String) -> Int {
        ((try? userState(userID)) ?? nil)?["passwordAttemptsLeft"]?.intValue ?? 0
    }
}
