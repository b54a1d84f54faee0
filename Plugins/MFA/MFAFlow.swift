import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// The `mfa` flow: user activation (code, device name, LDA consent or a
/// password) and login (password or LDA), password expiry, a forgotten
/// password, reset, logoff.
///
/// A state machine driven by the client's answers. All state is per host
/// process (one device); everything that must survive a restart (counters,
/// codes, credentials) lives in the store behind the credential services.
/// Touched only on the host's loop thread.
///
/// Larger than a type should be (split across `MFAFlow+*.swift`, one file
/// per concern): it is the SDK's whole MFA surface, some sixteen API
/// methods and their events, over one `Stage`. Its concerns share that
/// stage (a recovery, a forgotten password, a password change or a new device each start from
/// and return to `getUser` or the session), so types cut from it would
/// reach back into it for every step; the files keep them apart instead.
final class MFAFlow: Flow {
    enum Stage {
        case idle
        case awaitingUser
        /// With the verification key shown, so a wrong code can show it again.
        case awaitingActivationCode(userID: String, verificationKey: String)
        /// `grant` (from accepting the code) completes activation once.
        case awaitingDeviceName(userID: String, grant: String)
        case awaitingConsent(userID: String, grant: String)
        case awaitingNewPassword(userID: String, grant: String)
        /// `proof`: a fresh proof of this device's key for the next login
        /// call (nil: prove again first); `bind`: a device registered before
        /// keys, which gets one at this password login.
        case awaitingPassword(userID: String, proof: String?, bind: Bool)
        case awaitingExpiredUpdate(userID: String)
        /// `resetBlockedUserAccount`: the recovery code sent to a user blocked by password attempts.
        case awaitingRecoveryCode(userID: String, verificationKey: String)
        case awaitingLDA(userID: String)
        /// `forgotPassword`: the reset's code, with its verification key (empty: no live code).
        case awaitingResetCode(userID: String, verificationKey: String)
        /// The reset's code accepted: `grant` completes it once, with LDA or a new password.
        case awaitingResetConsent(userID: String, grant: String)
        case awaitingResetPassword(userID: String, grant: String)
        /// Waiting for the host (a device key, a proof of it).
        case awaitingDevice(userID: String)
        /// A new device for an active user: the `device-activation` flow runs its dialogue.
        case awaitingNewDevice(userID: String)
        /// The host's session is the record of who is logged in; the stage
        /// only says this flow's dialogue is over.
        case loggedIn(userID: String, sessionID: String)
    }

    let host: FlowHost
    var stage = Stage.idle
    var deviceID = ""
    var defaultDeviceName = ""
    var chosenDeviceName = ""
    var ldaCapabilities: [Int] = []
    /// A WebAuthn device: its assertion with UV is the LDA check too (spec §14).
    var proofVerifiesUser = false
    /// The dialogue in progress: a reset ends it, and what it started
    /// (an LDA check, a device proof) then reports to no one.
    var dialogue: Dialogue
    /// A key made for a legacy device's binding login, kept for a retry after
    /// a wrong password (so a wrong try leaves no extra key behind).
    var pendingBindKey: Services.DeviceCreateKeyOutcome?
    /// A logged-in user's password change (challengeMode 2) is open.
    var changingPassword = false
    /// The workflow the logged-in session began with (the SDK's `currentWorkFlow`).
    var loginWorkflow = Workflow.login
    /// The user the last `getUser` said was blocked by password attempts (141): `resetBlockedUserAccount` is for them.
    var recoverableUser: String?
    /// The operator's `passwords.forgotPassword`, as the last `setUser` read it: `getPassword` 0 says it (`ENABLE_FORGOT_PASSWORD`).
    var forgotPasswordEnabled = false

    init(host: FlowHost, config: JSON) throws(FlowHostError) {
        self.host = host
        dialogue = host.beginDialogue()
        if let key = config.keys.first { throw FlowHostError.invalidParams(field: "flows.mfa.\(key)", reason: "unknown key") }
    }

    func start() {
        let device = host.sessionInfo["device"] ?? .object()
        deviceID = device["deviceID"]?.stringValue ?? ""
        defaultDeviceName = device["deviceName"]?.stringValue ?? "Device \(deviceID.prefix(8))"
        ldaCapabilities = device["ldaCapabilities"]?.elements.compactMap(\.intValue) ?? []
        proofVerifiesUser = FlowHost.proofVerifiesUser(device: device)
        askForUser()
    }

    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? {
        switch method {
        case "setUser": try setUser(try params.requiredString("userName"))
        case "forgotPassword": try forgotPassword(params["userID"]?.stringValue)
        case "setActivationCode":
            if case .awaitingResetCode(let userID, let key) = stage {
                try setResetCode(try params.requiredString("activationCode"), userID: userID, verificationKey: key)
                return nil
            }
            if case .awaitingRecoveryCode(let userID, let key) = stage {
                try setRecoveryCode(try params.requiredString("activationCode"), userID: userID, verificationKey: key)
                return nil
            }
            try setActivationCode(try params.requiredString("activationCode"))
        case "resendActivationCode":
            if case .awaitingRecoveryCode(let userID, _) = stage {
                try sendRecoveryCode(userID)
            } else if case .awaitingResetCode(let userID, _) = stage {
                proveThenSendResetCode(userID, proof: nil)
            } else {
                try resendActivationCode()
            }
        case "resetBlockedUserAccount": try resetBlockedUserAccount()
        case "setDeviceName": try setDeviceName(try params.requiredString("deviceName"))
        case "setUserConsentForLDA" where isResetConsentOpen:
            try setResetConsent(try params.requiredBool("shouldEnrollLDA"), authenticationType: try params.requiredInt("authenticationType"))
        case "setUserConsentForLDA":
            try setUserConsent(try params.requiredBool("shouldEnrollLDA"), authenticationType: try params.requiredInt("authenticationType"))
        case "setPassword" where isResetPasswordOpen: try setResetPassword(try params.requiredString("password"))
        case "setPassword": try setPassword(try params.requiredString("password"), mode: try params.requiredInt("challengeMode"))
        case "updatePassword" where params["challengeMode"]?.intValue == ChallengeMode.updateCredentials:
            guard changingPassword else { throw FlowHostError.sdk(
                    SDKCode.invalidArguments,
                    host.text("updatePassword with challengeMode 2 answers getPassword 2; start with initiateUpdateFlowForCredential.", in: "mfa")) }
            changePassword(current: try params.requiredString("currentPassword"), new: try params.requiredString("newPassword"))
        case "updatePassword":
            try updatePassword(current: try params.requiredString("currentPassword"), new: try params.requiredString("newPassword"))
        case "getAllChallenges": try getAllChallenges(try params.requiredString("userName"))
        case "initiateUpdateFlowForCredential": try initiateUpdateFlowForCredential(try params.requiredString("credentialType"))
        case "resetAuthState": try resetAuthState()
        case "logOff": try logOff(try params.requiredString("userID"))
        case "extendSessionIdleTimeout": try extendSessionIdleTimeout()
        case "setSDKLanguage": try setLanguage(try params.requiredString("localeCode"), direction: try params.requiredInt("languageDirection"))
        default: throw FlowHostError.methodNotFound
        }
        return nil
    }

    /// What the host tells this flow: a session that ended by another
    /// hand (a block seen through the feed, a timeout, another flow), or a
    /// challenge that expired unanswered.
    func notified(topic: String, payload: JSON) {
        switch topic {
        case "session" where payload["event"]?.stringValue != "ended":
            sessionNotice(payload)
        case "session":
            guard case .loggedIn(let userID, let sessionID) = stage,
                payload["sessionID"]?.stringValue == sessionID
            else { return }
            changingPassword = false
            restartDialogue()
            host.emit("onUserLoggedOff", SDKPayload.event(sessionType: 1, sessionID: sessionID, fields: ["userID": .string(userID)]))
            askForUser()
        case "challenge.expired" where changingPassword:
            if case .loggedIn(let userID, _) = stage { credentialUpdated(userID, status: SDKCode.challengeExpired, message: host.text("The password change expired unanswered; nothing changed.", in: "mfa")) }
        case "challenge.cancelled":
            changingPassword = false
        case "challenge.expired":
            if case .loggedIn = stage { return }
            restartDialogue()
            askForUser(status: SDKCode.challengeExpired, message: host.text("The challenge expired unanswered; start again.", in: "mfa"))
        default:
            return
        }
    }

    // MARK: User

    func askForUser(status: Int = SDKCode.success, message: String = "Success", recoverable userID: String? = nil) {
        stage = .awaitingUser
        pendingBindKey = nil
        recoverableUser = status == SDKCode.blockedByPasswordAttempts ? userID : nil
        let remembered: JSON
        do {
            remembered = .array(try host.call(Services.CredentialsRememberedUsers(deviceID: deviceID)).users.map(JSON.string))
        } catch {
            host.log(.error, "reading the remembered users failed: \(error.message)")
            remembered = .array()
        }
        host.emit(
            "getUser",
            SDKPayload.event(
                status: status, message: message,
                fields: ["userNames": remembered, "recentlyLoggedInUser": remembered[0] ?? ""]))
    }

    func setUser(_ userID: String) throws(FlowHostError) {
        guard !userID.isEmpty else { return askForUser(status: SDKCode.unknownUser, message: host.text("Enter a user id.", in: "mfa")) }
        guard let state = try userState(userID) else {
            // The id is not kept: it may be a password typed into the wrong field.
            audit(nil, "login.user", "unknown")
            return askForUser(status: SDKCode.unknownUser, message: host.text("Invalid user: {userID} is not known.", in: "mfa", ["userID": userID]))
        }
        forgotPasswordEnabled = state.forgotPasswordEnabled ?? false
        if let blocked = state.blockedStatus {
            return askForUser(status: blocked, message: blockedMessage(blocked), recoverable: userID)
        }
        if !state.isActive {
            return askForActivationCode(userID, attemptsLeft: state.activationAttemptsLeft,
                                        verificationKey: state.verificationKey)
        }
        guard state.registeredOnDevice else {
            // Active elsewhere: ask the user's registered devices to approve this one.
            return joinAsNewDevice(userID)
        }
        // The device proves it holds its key before anything else happens. A
        // WebAuthn device's assertion with UV is the LDA check too (spec §14).
        let verifyUser = state.ldaType != nil && proofVerifiesUser
        proveDevice(userID, userVerification: verifyUser ? "required" : nil) { [self] proof in
            switch proof {
            case .verified(let proof):
                openSession(userID, factor: "lda", proof: proof)
            case .proven(let proof):
                if let ldaType = state.ldaType {
                    authenticateWithLDA(userID, type: ldaType, reason: .login) { [self] ok in
                        if ok { openSession(userID, factor: "lda", proof: proof) } else {
                            audit(userID, "login.lda", "failed")
                            askForUser(status: SDKCode.authenticationFailed, message: host.text("Authentication failed: the LDA check was cancelled or failed.", in: "mfa"))
                        }
                    }
                } else {
                    askForPassword(userID, mode: ChallengeMode.verify, attemptsLeft: state.passwordAttemptsLeft, proof: proof)
                }
            case .unbound:
                // Registered before device keys: a password login binds a key; LDA alone cannot.
                if state.ldaType != nil {
                    askForUser(status: SDKCode.deviceNotRegistered, message: host.text("This device was registered before device keys and uses LDA only; activate it again.", in: "mfa"))
                } else {
                    askForPassword(userID, mode: ChallengeMode.verify, attemptsLeft: state.passwordAttemptsLeft, bind: true)
                }
            case .refused(status: SDKCode.authenticationMethodNotSupported):
                askForUser(status: SDKCode.authenticationMethodNotSupported, message: syncedCredentialMessage)
            case .refused:
                askForUser(status: SDKCode.deviceNotRegistered, message: host.text("This device could not prove it is registered for this user.", in: "mfa"))
            }
        }
    }

    enum DeviceProof {
        case proven(String)
        /// Proven, and the proof verified the user (asked with `userVerification: "required"`).
        case verified(String)
        case unbound
        case refused(status: Int)
    }

    /// Asks the host to prove this device holds the user's key (for a
    /// platform-held key, the host asks the client to sign).
    func proveDevice(_ userID: String, userVerification: String? = nil, then: @escaping (DeviceProof) -> Void) {
        stage = .awaitingDevice(userID: userID)
        dialogue.call(Services.DeviceProve(userID: userID, deviceID: deviceID, reason: "login", userVerification: userVerification)) {
            [self] outcome in
            switch outcome {
            case .success(.proven(let proof, _, _, let userVerified)):
                then(userVerification == "required" && userVerified == true ? .verified(proof) : .proven(proof))
            case .success(.unbound): then(.unbound)
            case .success(.refused(let status, _)): then(.refused(status: status))
            case .failure(let error):
                host.log(.error, "proving the device failed: \(error.message)")
                askForUser(status: SDKCode.serverFailed, message: host.text("The server could not complete the request; try again.", in: "mfa"))
            }
        }
    }

    /// Asks the host for this device's new key (host custody: made in its
    /// keyring; platform custody: made by the client's platform).
    func createDeviceKey(_ userID: String, then: @escaping (Services.DeviceCreateKeyOutcome) -> Void) {
        stage = .awaitingDevice(userID: userID)
        dialogue.createDeviceKey(userID: userID, deviceID: deviceID) { [self] outcome in
            switch outcome {
            case .success(let key): then(key)
            case .failure(let error) where error.data?["reason"]?.stringValue == "synced-credential":
                askForUser(status: SDKCode.authenticationMethodNotSupported, message: syncedCredentialMessage)
            case .failure(let error):
                host.log(.error, "creating the device key failed: \(error.message)")
                askForUser(status: SDKCode.serverFailed, message: host.text("The device key could not be created; try again.", in: "mfa"))
            }
        }
    }

    /// A WebAuthn credential that is synced (a passkey), where the operator allows device-bound ones only.
    var syncedCredentialMessage: String {
        host.text(
            "This passkey is synced across devices; this service accepts only a credential bound to this device (webauthn.allowSynced).", in: "mfa")
    }

    // MARK: Helpers

    /// Ends the dialogue in progress (its calls and host requests are
    /// cancelled, their answers dropped) and starts the next.
    func restartDialogue() {
        dialogue.end(abandoning: true)
        dialogue = host.beginDialogue()
    }

    /// A service outcome that says the user's state changed under this
    /// dialogue (a block, another device's activation): back to `getUser`
    /// with the status that state calls for.
    func refused(status: Int, userID: String? = nil) {
        askForUser(status: status, message: refusalMessage(status), recoverable: userID)
    }

    /// Asks the client's platform for a biometric (or other LDA) check.
    func authenticateWithLDA(_ userID: String, type: Int, reason: FlowHost.LDAReason, then: @escaping (Bool) -> Void) {
        stage = .awaitingLDA(userID: userID)
        dialogue.authenticateWithLDA(userID: userID, type: type, reason: reason) { check in
            guard check != .abandoned else { return }
            then(check == .passed)
        }
    }

    func userState(_ userID: String) throws(FlowHostError) -> Services.CredentialsUserStateOutcome? {
        try host.call(Services.CredentialsUserState(userID: userID, deviceID: deviceID))
    }

    func audit(_ userID: String?, _ action: String, _ outcome: String) {
        do { _ = try host.call(Services.AuditRecord(action: action, outcome: outcome, userID: userID, deviceID: deviceID)) } catch {
            // The audit must not lose events silently: the operator sees it in the log.
            host.log(.error, "recording \(action) \(outcome) in the audit failed: \(error.message)")
        }
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
