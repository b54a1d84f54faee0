import FlowHostAudit
import FlowHostCore
import FlowHostCredentials
import FlowHostSessions
import FlowHostDevices
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// Sessions: `session.open` (a login without a password check, after LDA),
/// `session.extend`, `session.reauthenticate`, `session.token` and
/// `session.close`, and the store behind the host-owned session.
enum SessionsModule {
    static func register(_ credentials: CredentialService, sessions: SessionService, issuer: ReceiptIssuer, in engine: HostEngine) {
        // The engine owns the services registered here: capturing it strongly would keep it alive forever.
        unowned let engine = engine
        engine.session.keeper = StoreSessionKeeper(sessions: sessions)

        offer(
            engine, "session.open",
            [
                string("userID", userID: true), string("deviceID"), string("workflow"), string("proof", required: false),
                string("factor", required: false), integer("ldaType", required: false),
            ]
        ) { caller, p in
            let userID = try p.string("userID")
            let proof = try p.optionalString("proof")
            switch try credentials.openSession(userID, deviceID: try p.string("deviceID"), workflow: try p.string("workflow"), proof: proof) {
            case .opened(let sessionID):
                let factor = try p.optionalString("factor") == "password" ? "password" : "lda"
                engine.session.begin(userID: userID, sessionID: sessionID, factors: [factor], ldaType: try p.optionalInt("ldaType"), openedBy: caller)
                return ["outcome": "opened", "sessionID": .string(sessionID)]
            case .refused(let refusal):
                return CredentialsModule.refused(refusal)
            }
        }

        // The logged-in session's token (onUserLoggedIn's jwtJsonTokenInfo): only for this host's own session.
        offer(engine, "session.token", [string("sessionID")]) { _, p in
            guard let current = engine.session.current, current.sessionID == (try p.string("sessionID")) else {
                throw FlowHostError(.notAllowedNow, message: "a session token is for the session logged in on this host")
            }
            do {
                let token = try SessionToken.make(
                    issuer: issuer, userID: current.userID, sessionID: current.sessionID, deviceID: current.deviceID, issuedAt: DomainContext.now(),
                    expiresAt: current.since + sessions.settings.lifetimeSeconds, factors: current.factors)
                return ["token": .string(token)]
            } catch {
                engine.logger.error("making a session token failed: \(error)")
                throw FlowHostError.internalError
            }
        }

        // The SDK's extendSessionIdleTimeout, said by the flow that logs users in.
        offer(engine, Services.SessionExtend.self, []) { _, _ in
            try engine.session.extend()
            return Services.SessionExtendOutcome()
        }

        // Re-authentication is an explicit step: a flow spends the token a verification gave it.
        offer(engine, Services.SessionReauthenticate.self, [string("reauthentication")]) { _, call in
            Services.SessionReauthenticateOutcome(reauthenticated: try engine.session.reauthenticate(with: call.reauthentication))
        }

        offer(engine, "session.close", [string("sessionID"), string("reason", required: false)]) { _, p in
            let sessionID = try p.string("sessionID")
            let reason = try p.optionalString("reason").map(reasonName) ?? "logoff"
            try sessions.end(sessionID, reason: reason)
            engine.session.ended(sessionID: sessionID, reason: reason)
            return .object()
        }
    }

    /// Session end reasons a flow may give: short names only.
    static func reasonName(_ text: String) -> String {
        ["logoff", "host-exit", "step-up-failed", "expired"].contains(text) ? text : "other"
    }
}

/// The host-owned session's store side.
final class StoreSessionKeeper: SessionKeeper {
    let sessions: SessionService

    init(sessions: SessionService) { self.sessions = sessions }

    func end(sessionID: String, reason: String) throws { try sessions.end(sessionID, reason: reason) }
    func touch(sessionID: String) throws { try sessions.touch(sessionID) }
    var idleTimeoutSeconds: Int64 { sessions.settings.idleTimeoutSeconds }
    var lifetimeSeconds: Int64 { sessions.settings.lifetimeSeconds }
    var idleWarningSeconds: Int64 { min(60, sessions.settings.idleTimeoutSeconds / 4) }
}
