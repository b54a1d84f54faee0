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
/// In a host (`runsHere`) a worker thread runs the command. It starts at
/// the first audit row the host writes, event or not (never on the start
/// path), and first takes up the events a stopped host left; before the
/// host exits, `drain` lets the runs it woke finish. An admin command,
/// which exits right after its change, runs the events it made itself on
/// its own thread before it exits (`runEnqueued`), and no other: another
/// host's leftovers are that host's worker's, and an admin command must
/// not wait for them.
///
/// Used from one thread at a time (the host's loop, or the admin command).
public final class AuditEventDelivery: AuditEventSink {
    let settings: EventSettings
    let outbox: OutboxDelivery
    let worker: DeliveryWorker
    let store: any FlowStore
    let time: (Int64) -> String
    let runsHere: Bool
    private var workerStarted = false
    /// An admin command's events, committed, not yet run.
    private var enqueued: [Int64] = []

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
            openStore: { try store.newConnection() }, timeoutSeconds: settings.timeoutSeconds, attempts: settings.attempts,
            scansAtStart: true, logger: logger)
    }

    public func appended(_ entry: AuditEntry, in tx: any StoreWriter) throws {
        if runsHere, !workerStarted {
            // Lazily, but not at a later event: what an earlier host left goes out now.
            workerStarted = true
            worker.start()
        }
        guard settings.wants(entry.action) else { return }
        let body = Array(entry.streamJSON(time: time).serialized().utf8)
        let id = try outbox.enqueueEvent(body, userID: entry.userID ?? "", in: tx, at: entry.at)
        let worker = worker
        if runsHere {
            tx.onCommit { worker.wake(id) }
        } else {
            tx.onCommit { [self] in enqueued.append(id) }
        }
    }

    /// Runs the events this command made, on this thread, each once (a
    /// failure waits for its retry in a host's worker).
    public func runEnqueued() {
        let ids = enqueued
        enqueued.removeAll()
        worker.deliver(ids, store: store)
    }

    /// A host about to exit: waits for the runs its worker has queued or
    /// running, each up to its timeout.
    public func drain() { worker.drain() }
}
