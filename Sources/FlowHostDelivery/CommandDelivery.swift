import FlowHostChildProcess
import FlowHostPOSIX
import FlowHostAudit
import FlowHostStore
import FlowHostVocabulary

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hands each code to a configured program, the way a deployment passes it
/// to its mail or SMS gateway. The message goes to the program's stdin
/// (never its arguments, which other users can see); a non-zero exit, or a
/// run longer than the timeout (the program is then killed), is a failure
/// that is retried with back-off and recorded in the outbox row.
///
/// The transaction that made the code only seals it into the outbox; the
/// program runs afterwards on a worker thread, so a slow or hung program
/// holds neither the store's write lock nor the host's loop. The worker
/// opens a connection of its own on its thread: the host's connection
/// belongs to the host's loop.
public final class CommandDelivery: CodeDelivery {
    let outbox: OutboxDelivery
    let worker: DeliveryWorker

    /// The worker opens a connection of its own to `store` (`newConnection`).
    public init(
        argv: [String], outbox: OutboxDelivery, store: any FlowStore, settings: DeliverySettings,
        logger: @escaping @Sendable (String) -> Void
    ) {
        self.outbox = outbox
        worker = DeliveryWorker(
            argv: argv, kind: OutboxDelivery.codeKind, auditAction: "delivery.command", outbox: outbox, openStore: { try store.newConnection() },
            timeoutSeconds: settings.timeoutSeconds, attempts: settings.attempts, logger: logger)
    }

    public func enqueue(_ message: CodeMessage, in transaction: any StoreWriter, at now: Int64) throws -> Int64 {
        try outbox.enqueue(message, in: transaction, at: now)
    }

    public func committed(outboxID: Int64) { worker.wake(outboxID) }

    /// Starts the worker, which first takes up messages left undelivered by
    /// a host that stopped (their lease ran out).
    public func start() { worker.start() }
}

/// One thread that runs a command for the outbox messages of one kind (the
/// delivery command for codes, the events command for audit events), and
/// records each run in the outbox and in the audit (`auditAction`).
///
/// `@unchecked Sendable`: `queued`, `busy` and `started` are touched only
/// with `lock` held; everything else is immutable. The worker's connection is
/// opened and used on the worker's thread alone (`run` and what it calls).
final class DeliveryWorker: @unchecked Sendable {
    let argv: [String]
    let kind: String
    let auditAction: String
    let outbox: OutboxDelivery
    let openStore: @Sendable () throws -> any FlowStore
    let timeoutSeconds: Int
    let attempts: Int
    let logger: @Sendable (String) -> Void
    /// Reads what a stopped host left as soon as it starts, busy meanwhile
    /// (a host that exits soon after waits for it: `drain`); otherwise first
    /// after a wake-up or its first look, a few seconds in.
    let scansAtStart: Bool
    /// Turns an opened message into the command's input when it runs, or
    /// nil when it is no longer to be sent (a push whose device lost its
    /// token, or has a live host); without it the message goes as it was sealed.
    let prepare: (@Sendable (OutboxMessage, [UInt8], any StoreReader) throws -> [UInt8]?)?
    private let lock = Lock()
    private var queued: [Int64] = []
    /// The worker has taken work and not finished it yet.
    private var busy = false
    private var started = false

    init(
        argv: [String], kind: String, auditAction: String, outbox: OutboxDelivery, openStore: @escaping @Sendable () throws -> any FlowStore,
        timeoutSeconds: Int, attempts: Int, scansAtStart: Bool = false,
        prepare: (@Sendable (OutboxMessage, [UInt8], any StoreReader) throws -> [UInt8]?)? = nil, logger: @escaping @Sendable (String) -> Void
    ) {
        self.scansAtStart = scansAtStart
        self.prepare = prepare
        self.argv = argv
        self.kind = kind
        self.auditAction = auditAction
        self.outbox = outbox
        self.openStore = openStore
        self.timeoutSeconds = timeoutSeconds
        self.attempts = attempts
        self.logger = logger
    }

    func wake(_ outboxID: Int64) {
        let mustStart = lock.withLock {
            queued.append(outboxID)
            lock.signal()
            return !started
        }
        if mustStart { start() }
    }

    func start() {
        lock.withLock { startLocked() }
    }

    private func startLocked() {
        guard !started else { return }
        started = true
        busy = scansAtStart
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { argument in
            let worker = Unmanaged<DeliveryWorker>.fromOpaque(argument!).takeRetainedValue()
            worker.run()
            return nil
        }, retained)
        if created == 0 { pthread_detach(thread) } else {
            Unmanaged<DeliveryWorker>.fromOpaque(retained).release()
            (started, busy) = (false, false)
            logger("cannot start the delivery thread: \(created)")
        }
    }

    /// Waits for work: a wake-up, or the next retry (checked every few
    /// seconds while any message may be due later).
    private func run() {
        let store: any FlowStore
        do {
            store = try openStore()
        } catch {
            logger("the delivery thread cannot open the store: \(error)")
            lock.withLock { (started, busy) = (false, false) }
            return
        }
        var retryPending = true  // at start: messages a stopped host left
        var first = scansAtStart
        while true {
            var ids: [Int64] = lock.withLock {
                if queued.isEmpty, !first { lock.wait(seconds: retryPending ? 2 : nil) }
                first = false
                busy = true
                defer { queued.removeAll() }
                return queued
            }
            let now = Int64(time(nil))
            do {
                ids += try store.read { try $0.dueOutboxMessages(now: now, kind: kind, limit: 32) }
                retryPending = try store.read { tx in try tx.outbox(includeDelivered: false).contains { $0.failedAt == nil && $0.kind == kind } }
            } catch {
                logger("reading the outbox failed: \(error)")
                retryPending = true
            }
            var seen = Set<Int64>()
            for id in ids where seen.insert(id).inserted { deliver(id, store: store) }
            lock.withLock { busy = false }
        }
    }

    /// Waits until the worker has nothing queued or running, for at most
    /// one timeout (and a second) per message queued or running when it is
    /// called: a host that is about to exit lets what it woke finish,
    /// rather than dropping it and leaving its command to run on alone.
    /// What is left then waits for the next host's worker (its lease runs out).
    func drain() {
        let pending = lock.withLock { started ? queued.count + (busy ? 1 : 0) : 0 }
        guard pending > 0 else { return }
        let deadline = Int64(time(nil)) + Int64(pending * (timeoutSeconds + 1))
        while Int64(time(nil)) < deadline, lock.withLock({ started && (busy || !queued.isEmpty) }) { usleep(10_000) }
    }

    /// Runs `ids` now, on the caller's thread, with the caller's connection,
    /// each once if it is due (a command that exits after).
    func deliver(_ ids: [Int64], store: any FlowStore) {
        for id in ids { deliver(id, store: store) }
    }

    private func deliver(_ id: Int64, store: any FlowStore) {
        let now = Int64(time(nil))
        let lease = now + Int64(timeoutSeconds) + 30
        let claimed: OutboxMessage?
        do {
            claimed = try store.write(durability: .relaxed) { try $0.claimOutboxMessage(id: id, kind: kind, now: now, leaseUntil: lease) }
        } catch {
            logger("claiming outbox message #\(id) failed: \(error)")
            return
        }
        guard let message = claimed else { return }  // delivered, leased by another host, or not due yet
        var failure: String?
        var withdrawn = false
        do {
            var body = try outbox.openBytes(message)
            if let prepare {
                let prepared = try store.read { [body] in try prepare(message, body, $0) }
                SecureRandom.wipe(&body)
                withdrawn = prepared == nil
                body = prepared ?? []
            }
            if !withdrawn {
                body.append(UInt8(ascii: "\n"))
                failure = runCommand(input: &body)
            }
            SecureRandom.wipe(&body)
        } catch {
            failure = "\(error)"
        }
        let finished = Int64(time(nil))
        // An event about no user is sealed under "".
        let recordedUser = message.userID.isEmpty ? nil : message.userID
        do {
            try store.write { tx in
                if withdrawn {
                    // Nothing to run, ever: finished, and said so (the command did not run).
                    try tx.recordDeliveryFailure(outboxID: id, at: finished, reason: Self.withdrawnReason, retryAt: nil)
                    try tx.append(
                        AuditEntry(
                            at: finished, userID: recordedUser, deviceID: nil, action: auditAction, outcome: "withdrawn",
                            detail: "{\"outboxID\":\(id)}"))
                } else if let failure {
                    let tried = message.attempts + 1
                    let retryAt: Int64? = tried < attempts ? finished + Int64(5 << min(tried - 1, 6)) : nil
                    try tx.recordDeliveryFailure(outboxID: id, at: finished, reason: failure, retryAt: retryAt)
                    try tx.append(
                        AuditEntry(
                            at: finished, userID: recordedUser, deviceID: nil, action: auditAction,
                            outcome: retryAt == nil ? "gave-up" : "failed", detail: "{\"outboxID\":\(id),\"attempt\":\(tried)}"))
                } else {
                    try tx.markDelivered(outboxID: id, at: finished)
                    try tx.append(
                        AuditEntry(
                            at: finished, userID: recordedUser, deviceID: nil, action: auditAction, outcome: "ok",
                            detail: "{\"outboxID\":\(id)}"))
                }
            }
        } catch {
            logger("recording the delivery of outbox message #\(id) failed: \(error)")
        }
        if let failure { logger("delivery of outbox message #\(id) failed: \(failure)") }
    }

    /// The outbox row's reason for a message `prepare` withdrew.
    static let withdrawnReason = "withdrawn: nothing to send any more"

    /// Runs the command once with `input` on its stdin; nil on success, else why not.
    ///
    /// Its stdout and stderr are the host's: both the host's stderr, as the
    /// host's own stdout is (StdoutGuard: the frames have a descriptor of
    /// their own, which no child inherits). It has none of the host's other
    /// descriptors, and a session of its own, so that a timeout kills what
    /// it started too.
    private func runCommand(input: inout [UInt8]) -> String? {
        let command: ChildProcess
        do {
            command = try ChildProcess(
                argv, descriptors: [STDIN_FILENO: .pipeToChild, STDOUT_FILENO: .parent(STDOUT_FILENO), STDERR_FILENO: .parent(STDERR_FILENO)],
                newSession: true)
        } catch { return "\(error)" }
        // A message is far smaller than a pipe's buffer: this write does not wait on the program.
        var writeFailure: String?
        do { try command.write(input) } catch { writeFailure = "\(error)" }
        command.close(STDIN_FILENO)
        guard let end = command.wait(milliseconds: Int32(timeoutSeconds * 1000)) else {
            command.signal(SIGKILL)
            _ = command.wait()
            return "timed out after \(timeoutSeconds) s and was killed"
        }
        if let writeFailure { return "writing to the command: \(writeFailure)" }
        return end.code == 0 ? nil : "exited with status \(end.code)"
    }
}
