import FlowHostCore
import FlowHostCredentials
import FlowHostNotifications
import FlowHostServiceTypes
import FlowHostVocabulary
import FlowJSON

/// A known user's additional device, offered to the `device-activation`
/// flow: `newdevice.sendCode` and `newdevice.verifyCode` (the code
/// fallback), `newdevice.complete` (after an approval or that code). The
/// completion begins the host's session and tells the user's other devices.
enum NewDevicesModule {
    static func register(_ devices: AdditionalDeviceActivation, notifications: NotificationService, in engine: HostEngine) {
        // The session reaches the name table these services live in: held strongly, neither would be freed.
        unowned let hostSession = engine.session
        let logger = engine.logger
        offer(engine, Services.NewdeviceComplete.self) { caller, call in
            let (userID, ldaType, deviceName) = (call.userID, call.ldaType, call.deviceName)
            let authorization: NewDeviceAuthorization
            if let approval = call.approval { authorization = .approval(approval) } else if let grant = call.grant {
                authorization = .codeGrant(grant)
            } else {
                throw FlowHostError.invalidParams(field: "approval", reason: "an approval or a code's grant is required")
            }
            // password: verify it (newPassword: its replacement, if it expired); newPassword alone: a first password.
            let password: NewDevicePassword? =
                switch (call.password, call.newPassword) {
                case (let current?, let replacement): .verify(current, replacement: replacement)
                case (nil, let first?): .first(first)
                case (nil, nil): nil
                }
            let key = try CredentialsModule.newKey(keyID: call.keyID, publicKey: call.publicKey, custody: call.custody, prefix: "")
            let outcome = try devices.complete(
                userID, deviceID: call.deviceID, deviceName: deviceName, authorization: authorization, password: password, ldaType: ldaType,
                key: key, workflow: call.workflow)
            switch outcome {
            case .completed(let session):
                let sessionID = session.sessionID
                hostSession.begin(
                    userID: userID, sessionID: sessionID, feedPosition: session.feedPosition, factors: [ldaType == nil ? "password" : "lda"],
                    ldaType: ldaType, openedBy: caller)
                // NIST SP 800-63B 6.1.2.1: the user's other devices learn that a device was added.
                do {
                    _ = try notifications.create(
                        userID: userID, subject: "A new device was added", message: "\(deviceName) can now log in to your account.",
                        actions: [NotificationAction(label: "OK", action: "ok")], expiresInSeconds: 7 * 86_400, kind: "info")
                } catch {
                    logger.error("the informational notification failed: \(error)")
                }
                return .completed(sessionID: sessionID)
            case .wrongPassword(let left): return .wrong(attemptsLeft: left)
            case .passwordExpired: return .expired
            case .passwordRejected(.violatesPolicy(let found)): return .policy(problems: found.map(\.text), violations: .array(found.map(\.json)))
            case .passwordRejected(.reused): return .reused
            case .passwordRejected(.acceptable): throw FlowHostError(.internalError, message: "a new password rejected as acceptable")
            case .refused(let refusal): return .refused(refusal)
            }
        }

        offer(engine, Services.NewdeviceSendCode.self) { _, call in
            Services.ActivationResendOutcome(try devices.sendCode(call.userID, deviceID: call.deviceID))
        }

        offer(engine, Services.NewdeviceVerifyCode.self) { _, call in
            switch try devices.verifyCode(call.userID, code: call.code, deviceID: call.deviceID) {
            case .accepted(let grant): .accepted(grant: grant)
            case .wrong(let left): .wrong(attemptsLeft: left)
            case .expired, .superseded, .alreadyUsed: .expired(attemptsLeft: 0)
            case .refused(let refusal): .refused(refusal)
            }
        }
    }
}
