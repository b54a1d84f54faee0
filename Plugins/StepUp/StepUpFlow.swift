import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// The `step-up` flow: notifications for the logged-in user (list, history,
/// answer), the user's own devices (list, rename, delete), the device's push
/// token, and re-authentication as a service other flows call
/// (`stepup.authenticate`) before a sensitive action.
///
/// Touched only on the host's loop thread. Everything durable (the
/// notifications, attempts, device keys) lives in the store behind the
/// host's services; who is logged in is the host's session.
final class StepUpFlow: ServingFlow {
    let host: FlowHost
    var deviceID = ""
    /// A WebAuthn device: its assertion with UV is the LDA check too (spec §14).
    var proofVerifiesUser = false
    /// The step-up being served, if any. Replacing or clearing it ends its
    /// dialogue: what that dialogue started reports to no one.
    var current: StepUp? {
        didSet { if oldValue?.dialogue !== current?.dialogue { oldValue?.dialogue.end() } }
    }
    /// The notification answer waiting for its step-up, if any.
    var notificationAnswer: Dialogue?
    /// The device deletion waiting for its step-up, if any.
    var deviceChangeDialogue: Dialogue?

    struct StepUp {
        let dialogue: Dialogue
        var call: UInt64 { dialogue.servedCall! }
        let userID: String
        let challengeMode: Int
        var attemptsLeft: Int
    }

    init(host: FlowHost, config: JSON) throws(FlowHostError) {
        self.host = host
        if let key = config.keys.first { throw FlowHostError.invalidParams(field: "flows.step-up.\(key)", reason: "unknown key") }
    }

    func start() {
        let device = host.sessionInfo["device"]
        deviceID = device?["deviceID"]?.stringValue ?? ""
        proofVerifiesUser = FlowHost.proofVerifiesUser(device: device)
    }

    func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? {
        switch method {
        case "getNotifications": try getNotifications(params)
        case "getNotificationHistory": try getNotificationHistory(params)
        case "updateNotification": try updateNotification(try params.requiredString("notificationID"), action: try params.requiredString("response"))
        case "getRegisteredDeviceDetails": try getRegisteredDeviceDetails(try params.requiredString("userID"))
        case "updateDeviceDetails":
            try updateDeviceDetails(try params.requiredString("userID"), devicesJson: try params.requiredString("devicesJson"))
        case "setDeviceToken": try setDeviceToken(try params.requiredString("token"))
        case "setPassword": try setPassword(try params.requiredString("password"), mode: try params.requiredInt("challengeMode"))
        default: throw FlowHostError.methodNotFound
        }
        return nil
    }

    // MARK: Notifications

    func getNotifications(_ params: JSON) throws(FlowHostError) {
        let user = try host.loggedInUser()
        let listed = try host.call(try request(Services.NotificationsList.self, page(of: params, for: user)))
        // The seeds' iOS apps read `status.notificationResponse.notifications`.
        host.emit("onGetNotifications", SDKPayload.status(member: "notificationResponse", listed.result))
    }

    /// A request from the client's params as given: a member of the wrong
    /// type is the client's -32602, naming it.
    func request<Request: ServiceRequest>(_ type: Request.Type, _ params: JSON) throws(FlowHostError) -> Request {
        do { return try Request(params: params) } catch { throw FlowHostError.invalidParams(field: error.field, reason: error.reason) }
    }

    /// The SDK's paging and date parameters, passed on for the notifications
    /// domain to check (bad values are refused there, not dropped here).
    func page(of params: JSON, for user: String) -> JSON {
        let page: JSON = ["userID": .string(user)]
        for key in ["startIndex", "recordCount", "startDate", "endDate"] {
            if let value = params[key], value.kind != .null { page[key] = value }
        }
        return page
    }

    func getNotificationHistory(_ params: JSON) throws(FlowHostError) {
        let user = try host.loggedInUser()
        let query = page(of: params, for: user)
        for key in ["notificationStatus", "actionPerformed", "keywordSearch", "deviceID"] {
            if let value = params[key], value.kind != .null { query[key] = value }
        }
        let history = try host.call(try request(Services.NotificationsHistory.self, query))
        host.emit("onGetNotificationsHistory", SDKPayload.serverCall(responseData: history.result))
    }

    /// `updateNotification(notificationID, response)`: refused at once (nothing changes,
    /// no dialogue starts) when the notification cannot be answered; else
    /// step-up first when the action's `authlevel` asks for it.
    func updateNotification(_ uuid: String, action: String) throws(FlowHostError) {
        let user = try host.loggedInUser()
        let check = try host.call(Services.NotificationsCheck(userID: user, uuid: uuid, action: action))
        guard case .answerable(let authlevel) = check else {
            // The outcome's own name is the reason (unknown, expired, actionNotOffered, alreadyAnswered).
            let reason = check.result["outcome"]?.stringValue ?? "unknown"
            throw FlowHostError(.notificationNotAnswerable, message: host.text("The notification cannot be answered: {reason}", in: "step-up", ["reason": reason]), data: ["reason": .string(reason), "notification_uuid": .string(uuid)])
        }
        guard authlevel != "0" else { return answer(user, uuid: uuid, action: action) }
        notificationAnswer?.end()
        let dialogue = host.beginDialogue()
        notificationAnswer = dialogue
        dialogue.stepUp(Services.StepupAuthenticate(challengeMode: ChallengeMode.stepUp, reason: "notification")) { [self] outcome in
            dialogue.end()
            notificationAnswer = nil
            switch outcome {
            case .success(let outcome): stepUpFinished(user, uuid: uuid, action: action, outcome: outcome)
            case .failure(let error) where error.isCancellation: return  // abandoned: nothing recorded, nothing said
            case .failure(let error): updated(uuid, status: SDKCode.serverFailed, message: host.text("Step-up failed on the server side: {reason}", in: "step-up", ["reason": error.message]))
            }
        }
    }

    /// The statuses and the session's end are StepUpOutcome's; the words are the notification's.
    func stepUpFinished(_ user: String, uuid: String, action: String, outcome: StepUpOutcome) {
        let status = outcome.status
        switch outcome {
        case .authenticated:
            answer(user, uuid: uuid, action: action)
        case .exhausted: updated(uuid, status: status, message: host.text("Too many wrong attempts: you are logged off.", in: "step-up"))
        case .expired: updated(uuid, status: status, message: host.text("Your password has expired: you are logged off.", in: "step-up"))
        case .ldaCancelled:
            updated(uuid, status: status, message: host.text("Local device authentication was cancelled.", in: "step-up"), errorCode: SDKCode.ldaCancelledNoFallback, errorString: host.text("LDA cancelled", in: "step-up"))
        case .refused: updated(uuid, status: status, message: host.text("This device could not prove who you are.", in: "step-up"))
        case .cancelled:
            // The step-up's challenge expired or was replaced: an ordinary end, as in the toggle and signing.
            updated(uuid, status: status, message: host.text("The step-up expired unanswered; nothing was recorded.", in: "step-up"))
        case .biometricUnavailable, .biometricCancelled, .biometricFailed, .unknown:
            updated(uuid, status: StepUpOutcome.unknown(nil).status, message: host.text("Step-up failed on the server side.", in: "step-up"))
        }
    }

    func answer(_ user: String, uuid: String, action: String) {
        do {
            let result = try host.call(Services.NotificationsAnswer(userID: user, uuid: uuid, action: action, deviceID: deviceID))
            if case .updated = result {
                updated(uuid, status: SDKCode.success, message: host.text("Action {action} recorded.", in: "step-up", ["action": action]))
            } else {
                updated(uuid, status: SDKCode.serverFailed, message: host.text("The notification could no longer be answered: {outcome}.", in: "step-up", ["outcome": result.result["outcome"]?.stringValue ?? "unknown"]))
            }
        } catch {
            host.log(.error, "answering a notification failed: \(error.message)")
            updated(uuid, status: SDKCode.serverFailed, message: host.text("The action could not be recorded; try again.", in: "step-up"))
        }
    }

    /// `onUpdateNotification`, in the SDK's server-call envelope, read both
    /// ways the seeds read it: seed 004's handler takes `statusCode` and
    /// `statusMessage` at the top, seed 001's `status.statusCode` and
    /// `status.message` (besides the SDK's `status.statusMessage`).
    func updated(_ uuid: String, status: Int, message: String, errorCode: Int = SDKCode.noError, errorString: String = "Success") {
        let data: JSON = ["status_code": .int(status), "message": .string(message), "notification_uuid": .string(uuid), "is_ds_verified": false]
        let event = SDKPayload.serverCall(statusCode: status, message: message, responseData: data, errorCode: errorCode, errorString: errorString)
        event["statusCode"] = .int(status)
        event["statusMessage"] = .string(message)
        event["status"]?["message"] = .string(message)
        host.emit("onUpdateNotification", event)
    }

    // MARK: What the host tells

    func notified(topic: String, payload: JSON) {
        switch topic {
        case "session":
            // New notifications matter only while someone is logged in here.
            switch payload["event"]?.stringValue {
            case "opened": host.subscribe("notifications.created")
            case "ended": host.unsubscribe("notifications.created")
            default: break  // expiring, timingOut: still logged in
            }
        case "notifications.created":
            // Beyond the SDK: the client hears of a new notification without polling.
            guard let user = host.session?["userID"]?.stringValue, payload["userID"]?.stringValue == user else { return }
            host.emit("onNotificationReceived", ["userID": .string(user), "notification_uuid": payload["uuid"] ?? ""])
        case "challenge.expired", "challenge.cancelled":
            guard let step = current else { return }
            current = nil
            host.complete(step.call, .success(Services.StepupAuthenticateOutcome.cancelled.result))
        default:
            return
        }
    }

    func cancelled(_ call: UInt64) {
        if current?.call == call { current = nil }
    }
}
