import FlowHostVocabulary

/// What a session deadline asks of the engine.
enum SessionDue: Equatable {
    case nothing
    /// Schedule these again (the session was used meanwhile).
    case reschedule([ScheduledSessionDeadline])
    /// Warn the client: the idle end is `secondsLeft` away.
    case warn(HostSession, secondsLeft: Int)
    /// End the session for `reason` ("idle", "lifetime").
    case timeOut(HostSession, reason: String)
}

struct ScheduledSessionDeadline: Equatable {
    let key: Deadline
    let at: UInt64
}

/// The host's session as state and rules: who is logged in, when they last
/// proved it, the idle and absolute lifetimes, one idle warning per spell.
/// It decides; the engine acts (events, the store, the flows), so its rules
/// run alone in a test, on any clock.
///
/// Owned by the engine; touched on the loop thread only.
struct SessionController {
    private(set) var current: HostSession?
    /// Where the session's facts are kept and ended (set by the services module).
    var keeper: (any SessionKeeper)?
    /// Re-authentication tokens not yet spent: whose, and when issued (monotonic ms).
    private var reauthentications: [String: (userID: String, issuedMs: UInt64)] = [:]
    static let reauthenticationLifetimeMs: UInt64 = 60_000

    /// Starts a session at `now` (monotonic ms) and `wall` (seconds);
    /// returns the deadlines to schedule.
    mutating func begin(
        userID: String, sessionID: String, deviceID: String, factors: [String], ldaType: Int?, openedBy flow: String, now: UInt64, wall: Int64
    ) -> [ScheduledSessionDeadline] {
        current = HostSession(
            userID: userID, sessionID: sessionID, deviceID: deviceID, since: wall, lastProvedAt: wall, factors: factors, ldaType: ldaType,
            openedBy: flow, startedMs: now, lastActivityMs: now, lastPersistedMs: now)
        guard let keeper else { return [] }
        return [ScheduledSessionDeadline(key: .sessionLifetime, at: now + UInt64(keeper.lifetimeSeconds) * 1000)] + idleDeadlines()
    }

    /// Ends the session here; returns it (nil when no one was logged in).
    mutating func end() -> HostSession? {
        defer { current = nil }
        return current
    }

    /// A one-time token for `userID`'s re-authentication, good for a minute.
    mutating func issueReauthentication(userID: String, now: UInt64) -> String {
        reauthentications = reauthentications.filter { now - $0.value.issuedMs < Self.reauthenticationLifetimeMs }
        let token = RandomHex.make(bytes: 16)
        reauthentications[token] = (userID, now)
        return token
    }

    /// Spends `token`: nil when it is unknown, spent or expired; else
    /// whether the session was its user's (and so re-authenticated).
    mutating func reauthenticate(token: String, now: UInt64, wall: Int64) -> Bool? {
        guard let issued = reauthentications.removeValue(forKey: token), now - issued.issuedMs < Self.reauthenticationLifetimeMs else {
            return nil
        }
        guard current?.userID == issued.userID else { return false }
        current?.lastProvedAt = wall
        return true
    }

    /// Whether `userID` is logged in here on `deviceID` and, when `seconds`
    /// is given, proved who they are within the last `seconds`.
    func recentlyProved(userID: String, deviceID: String, within seconds: Int64?, wall: Int64) -> Bool {
        guard let current, current.userID == userID, current.deviceID == deviceID else { return false }
        guard let seconds else { return true }
        return wall - current.lastProvedAt <= seconds
    }

    /// Client activity at `now`: the idle lifetime restarts. Returns the
    /// session id when the store should hear of it (at most once a minute).
    mutating func touch(now: UInt64) -> String? {
        guard var session = current else { return nil }
        session.lastActivityMs = now
        var persist: String?
        if now - session.lastPersistedMs >= 60_000, keeper != nil {
            session.lastPersistedMs = now
            persist = session.sessionID
        }
        current = session
        return persist
    }

    /// `extendSessionIdleTimeout`: activity that the store hears of at once.
    mutating func extend(now: UInt64) -> (persist: String?, deadlines: [ScheduledSessionDeadline])? {
        guard current != nil else { return nil }
        current?.lastPersistedMs = 0
        let persist = touch(now: now)
        return (persist, idleDeadlines())
    }

    func idleDeadlines() -> [ScheduledSessionDeadline] {
        guard let current, let keeper else { return [] }
        let warning = UInt64(max(0, keeper.idleTimeoutSeconds - keeper.idleWarningSeconds)) * 1000
        return [
            ScheduledSessionDeadline(key: .sessionIdle, at: current.lastActivityMs + UInt64(keeper.idleTimeoutSeconds) * 1000),
            ScheduledSessionDeadline(key: .sessionWarning, at: current.lastActivityMs + warning),
        ]
    }

    /// What the session deadline `key`, come due at `now`, asks for.
    mutating func due(_ key: Deadline, now: UInt64) -> SessionDue {
        guard let session = current, let keeper else { return .nothing }
        let idleEnd = session.lastActivityMs + UInt64(keeper.idleTimeoutSeconds) * 1000
        switch key {
        case .sessionLifetime:
            guard now >= session.startedMs + UInt64(keeper.lifetimeSeconds) * 1000 else { return .nothing }
            return .timeOut(session, reason: "lifetime")
        case .sessionIdle:
            if now >= idleEnd { return .timeOut(session, reason: "idle") }
            return .reschedule(idleDeadlines())  // used meanwhile: the clock starts again
        case .sessionWarning:
            let warnAt = idleEnd - UInt64(keeper.idleWarningSeconds) * 1000
            guard now >= warnAt, session.warnedForActivityMs != session.lastActivityMs, now < idleEnd else { return .nothing }
            current?.warnedForActivityMs = session.lastActivityMs
            return .warn(session, secondsLeft: Int((idleEnd - now + 999) / 1000))
        default:
            return .nothing
        }
    }
}
