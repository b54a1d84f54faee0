import FlowHostCore
import FlowHostCredentials
import FlowJSON

/// `audit.record`: a flow's own events, counted per hour (never one row per call).
enum AuditModule {
    static func register(_ credentials: CredentialService, in engine: HostEngine) {
        offer(
            engine, "audit.record",
            [string("action"), string("outcome"), string("userID", required: false), string("deviceID", required: false)]
        ) { _, p in
            try credentials.record(
                userID: try p.optionalString("userID"), deviceID: try p.optionalString("deviceID"), action: try p.string("action"),
                outcome: try p.string("outcome"))
            return .object()
        }
    }
}
