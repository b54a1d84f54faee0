import FlowHostCore
import FlowHostCredentials
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
        // The engine owns the services registered here: capturing it strongly would keep it alive forever.
        unowned let engine = engine
        func requireFreshProof(_ userID: String, _ deviceID: String) throws(FlowHostError) {
            guard engine.session.recentlyProved(userID: userID, deviceID: deviceID, within: freshSeconds) else {
                throw FlowHostError(.notAllowedNow, message: "changing how a user authenticates needs that user logged in here and re-authenticated in the last \(freshSeconds) seconds")
            }
        }

        offer(engine, "authenticators.enableLDA", [string("userID", userID: true), string("deviceID"), integer("ldaType")]) { _, p in
            let userID = try p.string("userID")
            let deviceID = try p.string("deviceID")
            try requireFreshProof(userID, deviceID)
            return outcome(try authenticators.enableLDA(userID, deviceID: deviceID, ldaType: try p.int("ldaType")))
        }

        offer(
            engine, "authenticators.disableLDA", [string("userID", userID: true), string("deviceID"), string("newPassword", required: false)]
        ) { _, p in
            let userID = try p.string("userID")
            let deviceID = try p.string("deviceID")
            try requireFreshProof(userID, deviceID)
            return outcome(try authenticators.disableLDA(userID, deviceID: deviceID, newPassword: try p.optionalString("newPassword")))
        }
    }

    static func outcome(_ change: DeviceAuthenticators.Change) -> JSON {
        switch change {
        case .changed: ["outcome": "changed"]
        case .unchanged: ["outcome": "unchanged"]
        case .passwordRequired: ["outcome": "passwordRequired"]
        case .violatesPolicy(let problems): ["outcome": "policy", "problems": .array(problems.map(JSON.string))]
        case .reused: ["outcome": "reused"]
        case .refused(let refusal): CredentialsModule.refused(refusal)
        }
    }
}
