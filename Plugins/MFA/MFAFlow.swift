import FlowHostSDK
import FlowJSON

/// The `mfa` flow: user activation (code, device name, LDA consent or a
/// password) and login (password or LDA), password expiry, reset, logoff.
///
/// A state machine driven by the client's answers. All state is per host
/// process (one device); everything that must survive a restart (counters,
/// codes, credentials) lives in the store behind the credential services.
/// Touched only on the host's loop thread.
final class MFAFlow: Flow {
    enum Stage {
        case idle
        case awaitingUser
        case awaitingActivationCode(userID: String)
        case awaitingDeviceName(userID: String)
        case awaitingConsent(userID: String)
        case awaitingNewPassword(userID: String)
        case awaitingPassword(userID: String)
        case awaitingExpiredUpdate(userID: String)
        case awaitingLDA(userID: String)
        case loggedIn(userID: String, sessionID: String)
    }

    let host: FlowHost
    var stage = Stage.idle
    var deviceID = ""
    var defaultDeviceName = ""
    var chosenDeviceName = ""
    var ldaCapabilities: [Int] = []
    /// Bumped by every reset, so an LDA answer that arrives after one is ignored.
    var generation = 0

    init(host: FlowHost, config: JSON) throws(FlowError) {
        self.host = host
        if let key = config.keys.first { throw FlowError.invalidParams(field: "flows.mfa.\(key)", reason: "unknown key") }
    }

    func start() {
        let device = host.sessionInfo["device"] ?? .object()
        deviceID = device["deviceID"]?.stringValue ?? ""
        defaultDeviceName = device["deviceName"]?.stringValue ?? "Device \(deviceID.prefix(8))"
        ldaCapabilities = device["ldaCapabilities"]?.elements.compactMap(\.intValue) ?? []
        askForUser()
    }

    func handle(method: String, params: JSON) throws(FlowError) -> JSON? {
        switch method {
        case "setUser": try setUser(params["userName"]!.stringValue!)
        case "setActivationCode": try setActivationCode(params["activationCode"]!.stringValue!)
        case "resendActivationCode": try resendActivationCode()
        case "setDeviceName": try setDeviceName(params["deviceName"]!.stringValue!)
        case "setUserConsentForLDA":
            try setUserConsent(params["isEnrollLDA"]!.boolValue!, authenticationType: params["authenticationType"]!.intValue!)
        case "setPassword": try setPassword(params["password"]!.stringValue!, mode: params["challengeMode"]!.intValue!)
        case "updatePassword":
            try updatePassword(current: params["currentPassword"]!.stringValue!, new: params["newPassword"]!.stringValue!)
        case "resetAuthState": try resetAuthState()
        case "logOff": try logOff(params["userID"]!.stringValue!)
        default: throw FlowError.methodNotFound
        }
        return nil
    }

    // MARK: User

    func askForUser(status: Int = SDKPayload.success, message: String = "Success") {
        stage = .awaitingUser
        let remembered = (try? host.call("credentials.rememberedUsers", ["deviceID": .string(deviceID)]))?["users"] ?? .array()
        host.emit(
            "getUser",
            SDKPayload.event(
                status: status, message: message,
                fields: ["rememberedUsers": remembered, "recentLoggedInUser": remembered[0] ?? ""]))
    }

    private func setUser(_ userID: String) throws(FlowError) {
        guard !userID.isEmpty else { return askForUser(status: 101, message: "Enter a user id.") }
        guard let state = try userState(userID) else {
            audit(userID, "login.user", "unknown")
            return askForUser(status: 101, message: "Invalid user: \(userID) is not known.")
        }
        if let blocked = state["blockedStatus"]?.intValue {
            return askForUser(status: blocked, message: Self.blockedMessage(blocked))
        }
        if state["isActive"]?.boolValue != true {
            return askForActivationCode(userID, attemptsLeft: state["activationAttemptsLeft"]?.intValue ?? 0,
                                        verificationKey: state["verificationKey"]?.stringValue)
        }
        guard state["registeredOnDevice"]?.boolValue == true else {
            audit(userID, "login.device", "not-registered")
            return askForUser(
                status: 126,
                message: "\(userID) is active on another device; activating an additional device is not available yet.")
        }
        if let ldaType = state["ldaType"]?.intValue {
            authenticateWithLDA(userID, type: ldaType, reason: "login") { [self] ok in
                if ok { logIn(userID, workflow: Workflow.login) } else {
                    audit(userID, "login.lda", "failed")
                    askForUser(status: 102, message: "Authentication failed: the LDA check was cancelled or failed.")
                }
            }
            return
        }
        askForPassword(userID, mode: ChallengeMode.verify, attemptsLeft: state["passwordAttemptsLeft"]?.intValue ?? 0)
    }

    // MARK: Activation

    private func askForActivationCode(_ userID: String, attemptsLeft: Int, verificationKey: String?, status: Int = SDKPayload.success, message: String? = nil) {
        stage = .awaitingActivationCode(userID: userID)
        let (status, message) =
            verificationKey == nil && status == SDKPayload.success
            ? (106, "No valid activation code: it has expired or was used. Request a new one with resendActivationCode.")
            : (status, message ?? "Success")
        host.emit(
            "getActivationCode",
            SDKPayload.event(
                status: status, message: message, workflow: Workflow.activation,
                fields: [
                    "userID": .string(userID), "verificationKey": .string(verificationKey ?? ""), "attemptsLeft": .int(attemptsLeft),
                ]))
    }

    private func setActivationCode(_ code: String) throws(FlowError) {
        guard case .awaitingActivationCode(let userID) = stage else { throw Self.wrongStage }
        let outcome = try host.call(
            "activation.verify", ["userID": .string(userID), "code": .string(code), "deviceID": .string(deviceID)])
        let key = try userState(userID)?["verificationKey"]?.stringValue ?? ""
        switch outcome["outcome"]?.stringValue {
        case "accepted":
            stage = .awaitingDeviceName(userID: userID)
            host.emit(
                "getDeviceName",
                SDKPayload.event(workflow: Workflow.activation, fields: ["userID": .string(userID), "deviceName": .string(defaultDeviceName)]))
        case "wrong":
            askForActivationCode(
                userID, attemptsLeft: outcome["attemptsLeft"]?.intValue ?? 0, verificationKey: key, status: 106,
                message: "Invalid activation code.")
        case "expired":
            askForActivationCode(
                userID, attemptsLeft: outcome["attemptsLeft"]?.intValue ?? 0, verificationKey: "", status: 106,
                message: "The activation code has expired. Request a new one with resendActivationCode.")
        default:
            askForUser(status: 138, message: Self.blockedMessage(138))
        }
    }

    private func resendActivationCode() throws(FlowError) {
        guard case .awaitingActivationCode(let userID) = stage else { throw Self.wrongStage }
        let outcome = try host.call("activation.resend", ["userID": .string(userID), "deviceID": .string(deviceID)])
        switch outcome["outcome"]?.stringValue {
        case "sent":
            askForActivationCode(
                userID, attemptsLeft: outcome["attemptsLeft"]?.intValue ?? 0, verificationKey: outcome["verificationKey"]?.stringValue)
        case "tooSoon":
            let after = outcome["retryAfterSeconds"]?.intValue ?? 0
            throw FlowError(
                code: -32011, message: "Too many requests: retry after \(after) seconds",
                data: ["retryAfterSeconds": .int(after)])
        default:
            askForUser(status: 138, message: Self.blockedMessage(138))
        }
    }

    private func setDeviceName(_ name: String) throws(FlowError) {
        guard case .awaitingDeviceName(let userID) = stage else { throw Self.wrongStage }
        let trimmed = name.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.utf8.count <= 256 else {
            throw FlowError.invalidParams(field: "deviceName", reason: "must be 1 to 256 bytes")
        }
        chosenDeviceName = trimmed
        if let type = ldaCapabilities.first {
            stage = .awaitingConsent(userID: userID)
            host.emit(
                "getUserConsentForLDA",
                SDKPayload.event(
                    workflow: Workflow.activation,
                    fields: ["userID": .string(userID), "challengeMode": .int(ChallengeMode.set), "authenticationType": .int(type)]))
        } else {
            askForPassword(userID, mode: ChallengeMode.set, attemptsLeft: 0)
        }
    }

    private func setUserConsent(_ enroll: Bool, authenticationType: Int) throws(FlowError) {
        guard case .awaitingConsent(let userID) = stage else { throw Self.wrongStage }
        guard enroll else {
            audit(userID, "activation.lda-consent", "declined")
            return askForPassword(userID, mode: ChallengeMode.set, attemptsLeft: 0)
        }
        guard ldaCapabilities.contains(authenticationType) else {
            throw FlowError.invalidParams(field: "authenticationType", reason: "not one of this device's ldaCapabilities")
        }
        authenticateWithLDA(userID, type: authenticationType, reason: "enroll") { [self] ok in
            guard ok else {
                audit(userID, "activation.lda-enroll", "failed")
                stage = .awaitingConsent(userID: userID)
                host.emit(
                    "getUserConsentForLDA",
                    SDKPayload.event(
                        status: 102, message: "Authentication failed: the LDA check was cancelled or failed.",
                        workflow: Workflow.activation,
                        fields: [
                            "userID": .string(userID), "challengeMode": .int(ChallengeMode.set),
                            "authenticationType": .int(authenticationType),
                        ]))
                return
            }
            completeActivation(userID, password: nil, ldaType: authenticationType)
        }
    }

    private func completeActivation(_ userID: String, password: String?, ldaType: Int?) {
        let params: JSON = [
            "userID": .string(userID), "deviceID": .string(deviceID), "deviceName": .string(chosenDeviceName),
            "workflow": .string(Workflow.activation),
        ]
        if let password { params["password"] = .string(password) }
        if let ldaType { params["ldaType"] = .int(ldaType) }
        do {
            let sessionID = try host.call("activation.complete", params)["sessionID"]?.stringValue ?? ""
            loggedIn(userID, sessionID: sessionID, workflow: Workflow.activation)
        } catch {
            host.log(.error, "activation of a user failed: \(error.message)")
            askForUser(status: 114, message: "Activation failed on the server side; try again.")
        }
    }

    // MARK: Passwords

    private func askForPassword(_ userID: String, mode: Int, attemptsLeft: Int, status: Int = SDKPayload.success, message: String = "Success") {
        switch mode {
        case ChallengeMode.set: stage = .awaitingNewPassword(userID: userID)
        case ChallengeMode.updateOnExpiry: stage = .awaitingExpiredUpdate(userID: userID)
        default: stage = .awaitingPassword(userID: userID)
        }
        var info: [(String, String)] = []
        if mode != ChallengeMode.verify {
            let policy = (try? host.call("password.policy"))?["policy"]?.stringValue ?? "{}"
            info.append(("RELID_PASSWORD_POLICY", policy))
        } else {
            info.append(("ENABLE_FORGOT_PASSWORD", "false"))
        }
        host.emit(
            "getPassword",
            SDKPayload.event(
                status: status, message: message, workflow: mode == ChallengeMode.set ? Workflow.activation : Workflow.login,
                challengeInfo: info,
                fields: ["userID": .string(userID), "challengeMode": .int(mode), "attemptsLeft": .int(attemptsLeft)]))
    }

    private func setPassword(_ password: String, mode: Int) throws(FlowError) {
        switch stage {
        case .awaitingNewPassword(let userID):
            let check = try host.call("password.check", ["userID": .string(userID), "password": .string(password)])
            switch check["outcome"]?.stringValue {
            case "acceptable":
                completeActivation(userID, password: password, ldaType: nil)
            case "reused":
                askForPassword(userID, mode: ChallengeMode.set, attemptsLeft: 0, status: 164, message: Self.reusedMessage)
            default:
                askForPassword(userID, mode: ChallengeMode.set, attemptsLeft: 0, status: 190, message: Self.policyMessage(check))
            }
        case .awaitingPassword(let userID):
            let outcome = try host.call(
                "password.login",
                [
                    "userID": .string(userID), "password": .string(password), "deviceID": .string(deviceID),
                    "workflow": .string(Workflow.login),
                ])
            switch outcome["outcome"]?.stringValue {
            case "accepted":
                if let sessionID = outcome["sessionID"]?.stringValue {
                    loggedIn(userID, sessionID: sessionID, workflow: Workflow.login)
                } else {
                    askForPassword(
                        userID, mode: ChallengeMode.updateOnExpiry, attemptsLeft: 0,
                        message: "Your password has expired. Set a new one with updatePassword.")
                }
            case "wrong":
                askForPassword(
                    userID, mode: ChallengeMode.verify, attemptsLeft: outcome["attemptsLeft"]?.intValue ?? 0, status: 102,
                    message: "Invalid password.")
            default:
                askForUser(status: 141, message: Self.blockedMessage(141))
            }
        case .awaitingExpiredUpdate:
            throw FlowError.sdk(4, "An expired password is replaced with updatePassword(currentPassword, newPassword, 4).")
        default:
            throw Self.wrongStage
        }
    }

    private func updatePassword(current: String, new: String) throws(FlowError) {
        guard case .awaitingExpiredUpdate(let userID) = stage else {
            throw FlowError.sdk(4, "updatePassword answers getPassword with challengeMode 4 only.")
        }
        let outcome = try host.call(
            "password.update",
            ["userID": .string(userID), "currentPassword": .string(current), "newPassword": .string(new), "deviceID": .string(deviceID)])
        switch outcome["outcome"]?.stringValue {
        case "updated":
            logIn(userID, workflow: Workflow.login)
        case "wrongCurrent":
            askForPassword(
                userID, mode: ChallengeMode.updateOnExpiry, attemptsLeft: outcome["attemptsLeft"]?.intValue ?? 0, status: 102,
                message: "The current password is wrong.")
        case "reused":
            askForPassword(userID, mode: ChallengeMode.updateOnExpiry, attemptsLeft: 0, status: 164, message: Self.reusedMessage)
        case "policy":
            askForPassword(userID, mode: ChallengeMode.updateOnExpiry, attemptsLeft: 0, status: 190, message: Self.policyMessage(outcome))
        default:
            askForUser(status: 141, message: Self.blockedMessage(141))
        }
    }

    // MARK: Sessions

    private func logIn(_ userID: String, workflow: String) {
        do {
            let sessionID = try host.call(
                "session.open", ["userID": .string(userID), "deviceID": .string(deviceID), "workflow": .string(workflow)]
            )["sessionID"]?.stringValue ?? ""
            loggedIn(userID, sessionID: sessionID, workflow: workflow)
        } catch {
            host.log(.error, "opening a session failed: \(error.message)")
            askForUser(status: 114, message: "Login failed on the server side; try again.")
        }
    }

    private func loggedIn(_ userID: String, sessionID: String, workflow: String) {
        stage = .loggedIn(userID: userID, sessionID: sessionID)
        host.emit(
            "onUserLoggedIn",
            SDKPayload.event(sessionType: 1, sessionID: sessionID, workflow: workflow, fields: ["userID": .string(userID)]))
    }

    private func resetAuthState() throws(FlowError) {
        if case .loggedIn = stage {
            throw FlowError(code: -32006, message: "resetAuthState is for before login; use logOff")
        }
        generation += 1
        audit(nil, "flow.reset", "ok")
        askForUser()
    }

    private func logOff(_ userID: String) throws(FlowError) {
        guard case .loggedIn(let current, let sessionID) = stage, current == userID else {
            throw FlowError(code: -32006, message: "\(userID) is not logged in on this device")
        }
        _ = try host.call("session.close", ["sessionID": .string(sessionID)])
        generation += 1
        host.emit(
            "onUserLoggedOff", SDKPayload.event(sessionType: 1, sessionID: sessionID, fields: ["userID": .string(userID)]))
        askForUser()
    }

    // MARK: Helpers

    /// Asks the client's platform for a biometric (or other LDA) check.
    private func authenticateWithLDA(_ userID: String, type: Int, reason: String, then: @escaping (Bool) -> Void) {
        stage = .awaitingLDA(userID: userID)
        let asked = generation
        host.request(
            "platform/authenticateLDA",
            ["userID": .string(userID), "authenticationType": .int(type), "reason": .string(reason)]
        ) { [self] outcome in
            guard asked == generation, case .awaitingLDA = stage else { return }  // reset meanwhile
            if case .success(let result) = outcome, result["authenticated"]?.boolValue == true {
                then(true)
            } else {
                then(false)
            }
        }
    }

    private func userState(_ userID: String) throws(FlowError) -> JSON? {
        let state = try host.call("credentials.userState", ["userID": .string(userID), "deviceID": .string(deviceID)])
        return state.isNull ? nil : state
    }

    private func audit(_ userID: String?, _ action: String, _ outcome: String) {
        let entry: JSON = ["deviceID": .string(deviceID), "action": .string(action), "outcome": .string(outcome)]
        if let userID { entry["userID"] = .string(userID) }
        _ = try? host.call("audit.record", entry)
    }

    static let wrongStage = FlowError(code: -32006, message: "not expected now")
    static let reusedMessage = "The new password was used before: do not reuse any of your last 5 passwords."

    static func policyMessage(_ check: JSON) -> String {
        let problems = check["problems"]?.elements.compactMap(\.stringValue) ?? []
        return "The password does not meet the password policy: " + problems.joined(separator: "; ") + "."
    }

    static func blockedMessage(_ status: Int) -> String {
        status == 141
            ? "The user is blocked: too many wrong passwords. An administrator can unblock the account."
            : "The user is blocked: too many wrong activation codes, or by an administrator."
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first?.isWhitespace == true { scalars.removeFirst() }
        while scalars.last?.isWhitespace == true { scalars.removeLast() }
        return String(scalars)
    }
}
