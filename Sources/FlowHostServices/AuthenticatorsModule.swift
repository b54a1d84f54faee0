import FlowHostCore
import FlowHostCredentials
import FlowHostServiceTypes
import FlowHostVocabulary
import FlowJSON

/// How the logged-in user authenticates on this device, offered to flows:
/// `authenticators.enableLDA`, `authenticators.disableLDA`. Each needs the
/// user logged in on this host, on this device, and re-authenticated
/// (a step-up the host checked) within `freshSeconds`: a flow cannot change
/// a credential on the strength of a login long ago, or for another user.
enum AuthenticatorsModule {
    /// How recent the re-authentication before a change must be.
    static let freshSeconds: Int64 = 300

    static func register(_ authenticators: DeviceAuthenticators, in engine: HostEngine) {
        // The session reaches the name table these services live in: held strongly, neither would be freed.
        unowned let hostSession = engine.session
        func requireFreshProof(_ userID: String, _ deviceID: String) throws(FlowHostError) {
            guard hostSession.recentlyProved(userID: userID, deviceID: deviceID, within: freshSeconds) else {
                throw FlowHostError(.notAllowedNow, message: "changing how a user authenticates needs that user logged in here and re-authenticated in the last \(freshSeconds) seconds")
            }
        }

        offer(engine, Services.AuthenticatorsEnableLDA.self) { _, call in
            try requireFreshProof(call.userID, call.deviceID)
            return outcome(try authenticators.enableLDA(call.userID, deviceID: call.deviceID, ldaType: call.ldaType))
        }

        offer(engine, Services.AuthenticatorsDisableLDA.self) { _, call in
            try requireFreshProof(call.userID, call.deviceID)
            return outcome(try authenticators.disableLDA(call.userID, deviceID: call.deviceID, newPassword: call.newPassword))
        }
    }

    /// Both services answer the same closed set (one result schema).
    static func outcome(_ change: DeviceAuthenticators.Change) -> Services.AuthenticatorsEnableLDAOutcome {
        switch change {
        case .changed: .changed
        case .unchanged: .unchanged
        case .passwordRequired: .passwordRequired
        case .violatesPolicy(let found): .policy(problems: found.map(\.text), violations: .array(found.map(\.json)))
        case .reused: .reused
        case .refused(let refusal): .refused(refusal)
        }
    }
}
