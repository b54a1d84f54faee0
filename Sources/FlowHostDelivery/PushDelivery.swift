import FlowHostPOSIX
import FlowHostStore
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `push.command` for each notification made for a device that has a
/// push token and no live host (checked again when it runs): the push is sealed into the outbox in the
/// notification's own transaction (so a push exists exactly when its
/// notification does) and the command runs after the commit, with the
/// delivery command's runner: its timeout, its retries with back-off, and
/// its record (the outbox row, and a `push.command` audit row per run). The
/// flow that made the notification never waits for the command.
///
/// The outbox holds the device's id, never its token: the token is read
/// when the command runs (`tokenOf`), so a device revoked or deleted since
/// (its token removed with it), or with a live host now, or a notification
/// answered or expired since, is not pushed, and a replaced token is the
/// one used. The command's stdin is one JSON line `{token,
/// notificationID, subject}`, and `message` when the operator opted in
/// (`includeMessage`): without that, the message is not even sealed.
///
/// In a host (`runsHere`) a worker thread runs the command, started at the
/// first push (never on the start path), when it first takes up the pushes
/// a stopped host left; before the host exits, `drain` lets the runs it
/// woke finish. An admin command (`flowhost admin notify`)
/// runs its own pushes on its own thread before it exits (`runEnqueued`).
///
/// Used from one thread at a time (the host's loop, or the admin command).
public final class PushDelivery {
    let settings: PushSettings
    let outbox: OutboxDelivery
    let worker: DeliveryWorker
    let store: any FlowStore
    let runsHere: Bool
    /// An admin command's pushes, committed, not yet run, each with when it is due.
    private var enqueued: [(id: Int64, due: Int64)] = []
    /// A host's postponed pushes not yet due, for `drain`.
    private var postponed: [(id: Int64, due: Int64)] = []

    /// How long a push to a device that had a live host when its
    /// notification was made waits before that is checked again: time for
    /// the host to pass the notification on through the change feed. If the
    /// host has gone by then (its client left as the notification came),
    /// the device is pushed after all, rather than never told.
    public static let liveHostGraceSeconds: Int64 = 3

    /// `tokenOf(reader, userID, deviceID, notificationID)` is the token to
    /// push to now: the device's, while it has one and no live host and the
    /// notification still waits for an answer; else nil (not sent).
    public init(
        settings: PushSettings, argv: [String], outbox: OutboxDelivery, store: any FlowStore, runsHere: Bool,
        tokenOf: @escaping @Sendable (any StoreReader, String, String, String) throws -> String?, logger: @escaping @Sendable (String) -> Void
    ) {
        self.settings = settings
        self.outbox = outbox
        self.store = store
        self.runsHere = runsHere
        worker = DeliveryWorker(
            argv: argv, kind: OutboxDelivery.pushKind, auditAction: "push.command", outbox: outbox,
            openStore: { try store.newConnection() }, timeoutSeconds: settings.timeoutSeconds, attempts: settings.attempts, scansAtStart: true,
            prepare: { message, body, reader in try Self.input(message, body, reader, tokenOf: tokenOf) }, logger: logger)
    }

    /// Seals a push for `deviceID` into the outbox in the notification's
    /// transaction; `live`: the device had a live host then, so the push
    /// waits `liveHostGraceSeconds` and goes only if the host has gone.
    public func enqueue(
        userID: String, deviceID: String, live: Bool, notificationID: String, subject: String, message: String, in tx: any StoreWriter,
        at now: Int64
    ) throws {
        let body: JSON = ["deviceID": .string(deviceID), "notificationID": .string(notificationID), "subject": .string(subject)]
        if settings.includeMessage { body["message"] = .string(message) }
        let id = try outbox.enqueueSealed(Array(body.serialized().utf8), kind: OutboxDelivery.pushKind, userID: userID, in: tx, at: now)
        let due = live ? now + Self.liveHostGraceSeconds : now
        if live { try tx.postponeOutboxMessage(id: id, until: due) }
        let worker = worker
        if runsHere {
            // A postponed push is the worker's when it is due (it looks every few seconds while one waits).
            tx.onCommit { [self] in
                if live { postponed = postponed.filter { $0.due > now } + [(id, due)] }
                worker.wake(id)
            }
        } else {
            tx.onCommit { [self] in enqueued.append((id, due)) }
        }
    }

    /// The command's input for a sealed push, with the device's token as it
    /// is now; nil when the device has none (nothing is sent).
    static func input(
        _ message: OutboxMessage, _ body: [UInt8], _ reader: any StoreReader, tokenOf: (any StoreReader, String, String, String) throws -> String?
    ) throws -> [UInt8]? {
        let sealed = try body.withUnsafeBytes { try JSON.parse($0) }
        guard let deviceID = sealed["deviceID"]?.stringValue, let notificationID = sealed["notificationID"]?.stringValue,
            let token = try tokenOf(reader, message.userID, deviceID, notificationID)
        else { return nil }
        let input: JSON = ["token": .string(token)]
        for key in ["notificationID", "subject", "message"] { if let value = sealed[key] { input[key] = value } }
        return Array(input.serialized().utf8)
    }

    /// Runs the pushes this command made, on this thread, each once (a
    /// failure waits for its retry in a host's worker); a postponed one
    /// first waits until it is due.
    public func runEnqueued() {
        let pushes = enqueued
        enqueued.removeAll()
        if let last = pushes.map(\.due).max() {
            while Int64(time(nil)) < last { usleep(100_000) }
        }
        worker.deliver(pushes.map(\.id), store: store)
    }

    /// A host about to exit: waits for the runs its worker has queued or
    /// running, each up to its timeout, and first for its postponed pushes
    /// to fall due (at most `liveHostGraceSeconds`), so that none is left
    /// for a later host's worker.
    public func drain() {
        if let last = postponed.map(\.due).max() {
            while Int64(time(nil)) < last { usleep(100_000) }
            for push in postponed { worker.wake(push.id) }
            postponed.removeAll()
        }
        worker.drain()
    }
}
