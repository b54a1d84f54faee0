import FlowHostAudit
import FlowHostCore
import FlowHostServiceTypes
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// `audit.record`: a flow's own events, counted per hour (never one row per call).
enum AuditModule {
    static func register(_ audit: AuditLog, store: any FlowStore, in engine: HostEngine) {
        offer(engine, Services.AuditRecord.self) { _, call in
            // `deviceID` is accepted and not kept: a count is per user and hour.
            try audit.record(in: store, userID: call.userID, action: call.action, outcome: call.outcome)
            return Services.AuditRecordOutcome()
        }
    }
}
