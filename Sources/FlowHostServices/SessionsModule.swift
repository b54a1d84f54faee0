import FlowHostAudit
import FlowHostCore
import FlowHostCredentials
import FlowHostDevices
import FlowHostServiceTypes
import FlowHostSessions
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// Sessions: `session.open` (a login without a password check, after LDA),
/// `session.extend`, `session.reauthenticate`, `session.token` and
/// `session.close`, and the store behind the host-owned session.
enum SessionsModule {
    static func register(_ credentials: CredentialService, sessions: SessionService, issuer: ReceiptIssuer, in engine: HostEngine) {
        // The session reaches the name table these services live in: held strongly, neither would be freed.
        unowned let hostSession = engine.session
        let logger = engine.logger
        hostSession.keeper = StoreSessionKeeper(sessions: sessions)

        offer(engine, Services.SessionOpen.self) { caller, call in
            switch try credentials.openSession(call.userID, deviceID: call.deviceID, workflow: call.workflow, proof: call.proof) {
            case .opened(let session):
                let factor = call.factor == "password" ? "password" : "lda"
                hostSession.begin(
                    userID: call.userID, sessionID: session.sessionID, feedPosition: session.feedPosition, factors: [factor], ldaType: call.ldaType,
                    openedBy: caller)
                return .opened(sessionID: session.sessionID)
            case .refused(let refusal):
                return .refused(refusal)
            }
        }

        // The logged-in session's token (onUserLoggedIn's jwtJsonTokenInfo): only for this host's own session.
        offer(engine, Services.SessionToken.self) { _, call in
            guard let current = hostSession.current, current.sessionID == call.sessionID else {
                throw FlowHostError(.notAllowedNow, message: "a session token is for the session logged in on this host")
            }
            do {
                let token = try SessionToken.make(
                    issuer: issuer, userID: current.userID, sessionID: current.sessionID, deviceID: current.deviceID, issuedAt: DomainContext.now(),
                    expiresAt: current.since + sessions.settings.lifetimeSeconds, factors: current.factors)
                return Services.SessionTokenOutcome(token: token)
            } catch {
                logger.error("making a session token failed: \(error)")
                throw FlowHostError.internalError
            }
        }

        // The SDK's extendSessionIdleTimeout, said by the flow that logs users in.
        offer(engine, Services.SessionExtend.self) { _, _ in
            try hostSession.extend()
            return Services.SessionExtendOutcome()
        }

        // Re-authentication is an explicit step: a flow spends the token a verification gave it.
        offer(engine, Services.SessionReauthenticate.self) { _, call in
            Services.SessionReauthenticateOutcome(reauthenticated: try hostSession.reauthenticate(with: call.reauthentication))
        }

        offer(engine, Services.SessionClose.self) { _, call in
            let reason = call.reason.map(reasonName) ?? "logoff"
            try sessions.end(call.sessionID, reason: reason)
            hostSession.ended(sessionID: call.sessionID, reason: reason)
            return Services.SessionCloseOutcome()
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
