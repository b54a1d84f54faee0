import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Copies the WAL back into the store file on a thread of its own, so that
/// no client's request waits for it.
///
/// SQLite's own automatic checkpoint runs inside the commit that takes the
/// WAL past 1,000 frames: that request then waits for two syncs (the WAL,
/// then the store file), 3 to 4 ms on this project's machines, once every
/// 80 or so logins. Here the commit only asks (`committed(frames:)`, from
/// the connection's WAL hook) and this thread checkpoints, PASSIVE: it
/// never takes the write lock, and copies what no reader still needs. What
/// a checkpoint syncs, and when, is as before: a relaxed commit is on disk
/// at the next checkpoint, a durable one at its own commit.
///
/// The thread and its connection exist only once a checkpoint was asked
/// for (an idle host has neither), and `stop` ends both: the store's own
/// connection must be the last one to close, since only the last close
/// empties the WAL. Where the thread cannot start or cannot open the file,
/// the commit checkpoints itself, as SQLite would: the WAL never grows
/// without bound for want of a thread.
///
/// `@unchecked Sendable`: `mode`, `thread`, `pending`, `checkpointing`,
/// `awaitingFinish` and the counts are only touched under `lock`; the
/// thread's connection only by the thread.
final class WALCheckpointer: @unchecked Sendable {
    /// The WAL size, in frames, at which a commit asks for a checkpoint
    /// (SQLite's default for its automatic checkpoint).
    static let defaultThreshold: Int32 = 1000

    private enum Mode {
        /// No checkpoint asked for yet: no thread.
        case waiting
        case background
        /// The thread could not start or open the file: commits checkpoint themselves.
        case inline
        case stopped
    }

    let threshold: Int32
    private let openConnection: () throws -> SQLiteConnection
    private let report: (String) -> Void
    private let lock = Lock()
    private var mode = Mode.waiting
    private var thread: pthread_t?
    /// A checkpoint asked of the thread and not yet begun.
    private var pending = false
    /// The thread is checkpointing.
    private var checkpointing = false
    /// The thread completed a checkpoint that no commit has finished yet.
    private var awaitingFinish = false
    private var completed = 0
    private var largestWAL: Int32 = 0
    private var lastFrames: Int32 = 0
    private var restarts = 0

    /// `openConnection` opens the thread's own connection to the same file;
    /// `report` tells the operator what went wrong (never on the hot path).
    init(threshold: Int32 = defaultThreshold, openConnection: @escaping () throws -> SQLiteConnection, report: @escaping (String) -> Void) {
        self.threshold = threshold
        self.openConnection = openConnection
        self.report = report
    }

    /// From the WAL hook, on the committing thread, after a commit left
    /// `frames` in the WAL. True when the caller must checkpoint itself.
    /// Takes this object's lock only, never the store's.
    ///
    /// The WAL starts again from its beginning only at a write that finds
    /// every frame of it copied; under steady load, commits land while the
    /// thread copies, and it would never find that. So the first commit
    /// after the thread's checkpoint copies the few frames added meanwhile
    /// itself (a sync of those frames and of the store file, where the
    /// thread's was of a thousand), and the next write starts the WAL
    /// again, as after SQLite's own checkpoint. Where no thread can run,
    /// every commit past the threshold checkpoints, as SQLite's would.
    func committed(frames: Int32) -> Bool {
        lock.withLock {
            largestWAL = max(largestWAL, frames)
            if frames < lastFrames { restarts += 1 }
            lastFrames = frames
            guard frames >= threshold else {
                // The WAL started again (here or in another process): nothing to finish.
                awaitingFinish = false
                return false
            }
            if mode == .waiting { start() }
            switch mode {
            case .inline: return true
            case .background:
                if pending || checkpointing { return false }
                if awaitingFinish {
                    awaitingFinish = false
                    return true
                }
                pending = true
                lock.signal()
                return false
            case .waiting, .stopped: return false
            }
        }
    }

    /// Checkpoints the thread has completed (for tests).
    var checkpointsCompleted: Int { lock.withLock { completed } }

    /// The most frames a commit has left in the WAL, and how often a
    /// commit found it started again (for tests).
    var largestWALFrames: Int32 { lock.withLock { largestWAL } }
    var walRestarts: Int { lock.withLock { restarts } }

    /// Ends the thread, after the checkpoint it is running, and so closes
    /// its connection. Later requests are ignored.
    func stop() {
        let joinable: pthread_t? = lock.withLock {
            mode = .stopped
            lock.signal()
            defer { thread = nil }
            return thread
        }
        if let joinable { pthread_join(joinable, nil) }
    }

    /// Under `lock`.
    private func start() {
        let retained = Unmanaged.passRetained(self).toOpaque()
        var created = pthread_t()
        let code = pthread_create(&created, nil, { argument in
            let checkpointer = Unmanaged<WALCheckpointer>.fromOpaque(argument!).takeRetainedValue()
            checkpointer.run()
            return nil
        }, retained)
        if code == 0 {
            thread = created
            mode = .background
        } else {
            Unmanaged<WALCheckpointer>.fromOpaque(retained).release()
            mode = .inline
            report("cannot start the checkpoint thread (\(String(cString: strerror(code)))): commits checkpoint the store themselves")
        }
    }

    private func run() {
        let connection: SQLiteConnection
        do {
            connection = try openConnection()
        } catch {
            report("the checkpoint thread cannot open the store (\(error)): commits checkpoint it themselves")
            lock.withLock { if mode == .background { mode = .inline } }
            return
        }
        while true {
            let goOn: Bool = lock.withLock {
                while !pending && mode == .background { lock.wait() }
                pending = false
                checkpointing = mode == .background
                return checkpointing
            }
            guard goOn else { return }
            var copied = false
            do {
                try connection.checkpointPassive()
                copied = true
            } catch where error.isBusy {
                // Another connection is checkpointing: its copy serves as well.
            } catch {
                report("a checkpoint failed: \(error)")
            }
            lock.withLock {
                checkpointing = false
                if copied {
                    completed += 1
                    awaitingFinish = true
                }
            }
        }
    }
}
