import FlowHostStore
import FlowJSON

/// Sessions: opened at login or activation, ended by logoff, by a block, by
/// the host's exit, or by their idle and absolute lifetimes.
extension CredentialService {
    /// An LDA login: a session for a user who may log in on this device now.
    public func openSession(_ userID: String, deviceID: String, workflow: String) throws -> SessionOutcome {
        let now = clock()
        return try write(durability: .relaxed) { tx in
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            if let refusal = try loginRefusal(tx, user, deviceID: deviceID) {
                try count(tx, userID, "session.open", refusal.name)
                return .refused(refusal)
            }
            return .opened(sessionID: try openSession(tx, userID: userID, deviceID: deviceID, workflow: workflow, now: now))
        }
    }

    /// Ends a session (`reason`: logoff, host-exit, …). Ending one that has
    /// ended already (by a block, or its lifetime) is not an error.
    public func endSession(_ sessionID: String, reason: String = "logoff") throws {
        let now = clock()
        // Losing a session's end to a power loss changes no credential.
        try write(durability: .relaxed) { tx in
            guard let session = try tx.session(sessionID) else { throw StoreError.notFound }
            if try tx.endSession(sessionID, at: now, reason: reason) {
                try audit(tx, session.userID, session.deviceID, "session.close", reason)
            }
        }
    }

    /// Records that a session was used: its idle lifetime restarts.
    public func touchSession(_ sessionID: String) throws {
        let now = clock()
        try write(durability: .relaxed) { try $0.touchSession(sessionID, at: now) }
    }

    /// Whether a session is still open (not ended by anything), after ending
    /// the sessions whose lifetime ran out.
    public func isSessionOpen(_ sessionID: String) throws -> Bool {
        try endExpiredSessions()
        return try store.read { try $0.session(sessionID)?.endedAt == nil }
    }

    /// Ends every session past its idle or absolute lifetime.
    @discardableResult
    public func endExpiredSessions() throws -> Int {
        let now = clock()
        return try write(durability: .relaxed) { try expireSessions($0, now: now) }
    }

    func openSession(_ tx: any StoreWriter, userID: String, deviceID: String, workflow: String, now: Int64) throws -> String {
        try expireSessions(tx, now: now)
        if var device = try tx.device(userID: userID, deviceID: deviceID) {
            device.lastAccessAt = now
            try tx.save(device)
        }
        let sessionID = SecureRandom.hex(bytes: 16)
        try tx.insert(SessionRecord(sessionID: sessionID, userID: userID, deviceID: deviceID, workflow: workflow, createdAt: now))
        try audit(tx, userID, deviceID, "session.open", "ok", ["workflow": .string(workflow)])
        return sessionID
    }

    @discardableResult
    func expireSessions(_ tx: any StoreWriter, now: Int64) throws -> Int {
        try tx.endExpiredSessions(
            idleBefore: now - settings.sessionIdleTimeoutSeconds, createdBefore: now - settings.sessionLifetimeSeconds, at: now)
    }

    /// Ends all of a user's open sessions, on every device, with one audit
    /// row, and announces it on the change feed in the same transaction: a
    /// host where one of them is in use ends it there too.
    func endSessions(_ tx: any StoreWriter, _ userID: String, reason: String, now: Int64) throws {
        let open = try tx.openSessions(userID: userID).map(\.sessionID)
        guard !open.isEmpty else { return }
        let ended = try tx.endSessions(userID: userID, deviceID: nil, at: now, reason: reason)
        try audit(tx, userID, nil, "session.close", reason, ["sessions": .int(ended)])
        let notice: JSON = ["userID": .string(userID), "sessionIDs": .array(open.map(JSON.string)), "reason": .string(reason)]
        try tx.appendFeedEvent(topic: Self.sessionsEndedTopic, payload: notice.serialized(), at: now)
        feedAppended = true
    }

    /// The feed topic of `endSessions` (the engine listens on it).
    public static let sessionsEndedTopic = "sessions.ended"
}
