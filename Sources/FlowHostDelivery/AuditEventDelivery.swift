import FlowHostAudit
import FlowHostStore

/// Runs `events.command` for the audit rows the config names. Each such row
/// is sealed into the outbox in the row's own transaction (so an event
/// exists exactly when its row does) and the command runs after the commit,
/// with the delivery command's runner: its timeout, its retries with
/// back-off, and its record (the outbox row, and an `events.command` audit
/// row per run). The flow that wrote the row never waits for the command.
///
/// Delivery is at least once: a run that timed out, or a host that stopped
/// between a run and its record, sends the event again. The event's `seq`
/// tells a repeat.
///
/// In a host (`runsHere`) a worker thread runs the command; it starts at
/// the first event, and then also takes up the events a stopped host left.
/// An admin command, which exits right after its change, runs its events on
/// its own thread before it exits (`runWaiting`).
public final class AuditEventDelivery: AuditEventSink {
    let settings: EventSettings
    let outbox: OutboxDelivery
    let worker: DeliveryWorker
    let store: any FlowStore
    let time: (Int64) -> String
    let runsHere: Bool

    /// `time` spells the row's time (the stream's spelling, `ISOTime`).
    public init(
        settings: EventSettings, argv: [String], outbox: OutboxDelivery, store: any FlowStore, time: @escaping (Int64) -> String,
        runsHere: Bool, logger: @escaping @Sendable (String) -> Void
    ) {
        self.settings = settings
        self.outbox = outbox
        self.store = store
        self.time = time
        self.runsHere = runsHere
        worker = DeliveryWorker(
            argv: argv, kind: OutboxDelivery.eventKind, auditAction: "events.command", outbox: outbox,
            openStore: { try store.newConnection() }, timeoutSeconds: settings.timeoutSeconds, attempts: settings.attempts, logger: logger)
    }

    public func appended(_ entry: AuditEntry, in tx: any StoreWriter) throws {
        guard settings.wants(entry.action) else { return }
        let body = Array(entry.streamJSON(time: time).serialized().utf8)
        let id = try outbox.enqueueEvent(body, userID: entry.userID ?? "", in: tx, at: entry.at)
        guard runsHere else { return }
        let worker = worker
        tx.onCommit { worker.wake(id) }
    }

    /// Runs the events that are due now, on this thread, each once (a
    /// failure waits for its retry in a host's worker).
    public func runWaiting() { worker.deliverDue(store: store) }
}
