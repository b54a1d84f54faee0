import FlowHostCore
import FlowHostAudit
import FlowHostStore
import FlowJSON

/// `audit.record`: a flow's own events, counted per hour (never one row per call).
enum AuditModule {
    static func register(_ audit: AuditLog, store: any FlowStore, in engine: HostEngine) {
        // The engine owns the services registered here: capturing it strongly would keep it alive forever.
        unowned let engine = engine
        offer(
            engine, "audit.record",
            [string("action"), string("outcome"), string("userID", required: false), string("deviceID", required: false)]
        ) { _, p in
            // `deviceID` is accepted and not kept: a count is per user and hour.
            _ = try p.optionalString("deviceID")
            try audit.record(in: store, userID: try p.optionalString("userID"), action: try p.string("action"), outcome: try p.string("outcome"))
            return .object()
        }
    }
}
