import FlowHostCore
import FlowHostCredentials
import FlowJSON

/// `audit.record`: a flow's own events, counted per hour (never one row per call).
enum AuditModule {
    static func register(_ credentials: CredentialService, in engine: HostEngine) {
        // The engine owns the services registered here: capturing it strongly would keep it alive forever.
        unowned let engine = engine
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
