import FlowHostCore
import FlowHostCredentials
import FlowHostNotifications
import FlowHostVocabulary
import FlowJSON

/// A known user's additional device, offered to the `device-activation`
/// flow: `newdevice.sendCode` and `newdevice.verifyCode` (the code
/// fallback), `newdevice.complete` (after an approval or that code). The
/// completion begins the host's session and tells the user's other devices.
enum NewDevicesModule {
    static func register(_ devices: AdditionalDeviceActivation, notifications: NotificationService, in engine: HostEngine) {
        // The engine owns the services registered here: capturing it strongly would keep it alive forever.
        unowned let engine = engine
        offer(
            engine, "newdevice.complete",
            [
                string("userID", userID: true), string("deviceID"), string("deviceName"), string("approval", required: false),
                string("grant", required: false), string("workflow"), string("password", required: false), string("newPassword", required: false),
                integer("ldaType", required: false),
                string("keyID"), string("publicKey"), string("custody"),
            ]
        ) { caller, p in
            let userID = try p.string("userID")
            let ldaType = try p.optionalInt("ldaType")
            let deviceName = try p.string("deviceName")
            let authorization: NewDeviceAuthorization
            if let approval = try p.optionalString("approval") { authorization = .approval(approval) } else if let grant = try p.optionalString("grant") {
                authorization = .codeGrant(grant)
            } else {
                throw FlowHostError.invalidParams(field: "approval", reason: "an approval or a code's grant is required")
            }
            // password: verify it (newPassword: its replacement, if it expired); newPassword alone: a first password.
            let password: NewDevicePassword? =
                switch (try p.optionalString("password"), try p.optionalString("newPassword")) {
                case (let current?, let replacement): .verify(current, replacement: replacement)
                case (nil, let first?): .first(first)
                case (nil, nil): nil
                }
            let outcome = try devices.complete(
                userID, deviceID: try p.string("deviceID"), deviceName: deviceName, authorization: authorization,
                password: password, ldaType: ldaType, key: try CredentialsModule.newKey(p, prefix: ""), workflow: try p.string("workflow"))
            switch outcome {
            case .completed(let sessionID):
                engine.session.begin(userID: userID, sessionID: sessionID, factors: [ldaType == nil ? "password" : "lda"], ldaType: ldaType, openedBy: caller)
                // NIST SP 800-63B 6.1.2.1: the user's other devices learn that a device was added.
                do {
                    _ = try notifications.create(
                        userID: userID, subject: "A new device was added", message: "\(deviceName) can now log in to your account.",
                        actions: [NotificationAction(label: "OK", action: "ok")], expiresInSeconds: 7 * 86_400, kind: "info")
                } catch {
                    engine.logger.error("the informational notification failed: \(error)")
                }
                return ["outcome": "completed", "sessionID": .string(sessionID)]
            case .wrongPassword(let left): return ["outcome": "wrong", "attemptsLeft": .int(left)]
            case .passwordExpired: return ["outcome": "expired"]
            case .passwordRejected(let check): return CredentialsModule.check(check)
            case .refused(let refusal): return CredentialsModule.refused(refusal)
            }
        }

        offer(engine, "newdevice.sendCode", [string("userID", userID: true), string("deviceID")]) { _, p in
            CredentialsModule.sent(try devices.sendCode(try p.string("userID"), deviceID: try p.string("deviceID")))
        }

        offer(engine, "newdevice.verifyCode", [string("userID", userID: true), string("code"), string("deviceID")]) { _, p in
            switch try devices.verifyCode(try p.string("userID"), code: try p.string("code"), deviceID: try p.string("deviceID")) {
            case .accepted(let grant): return ["outcome": "accepted", "grant": .string(grant)]
            case .wrong(let left): return ["outcome": "wrong", "attemptsLeft": .int(left)]
            case .expired, .superseded, .alreadyUsed: return ["outcome": "expired", "attemptsLeft": 0]
            case .refused(let refusal): return CredentialsModule.refused(refusal)
            }
        }
    }
}
