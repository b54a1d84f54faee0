import FlowHostPOSIX

#if canImport(Glibc)
import CEpoll
import Glibc
#endif

/// A wake-up that also carries the feed's rows: the host reads its events
/// from it, and from the store only when it returns nil.
public protocol FeedRelaying: FeedSignal {
    /// The host now follows `topics` after `cursor`; no topic: it follows
    /// nothing (the relay keeps its place a while, then lets go).
    func follow(topics: Set<String>, after cursor: Int64)
    /// What the host's loop waits on while it follows nothing: the relay
    /// still held from its last interest (`FeedRelay.lingerNanoseconds`),
    /// or nil.
    var idleDescriptor: Int32? { get }
    /// Events after `sequence` on `topics`, oldest first, as relayed; nil
    /// when the relay cannot vouch for them (the host reads the store).
    func events(after sequence: Int64, topics: Set<String>, limit: Int) -> [StoredFeedEvent]?
    /// The store's events, read by this host itself, for when `events`
    /// gives nil. A read that finds an append still running gives nothing,
    /// and so does every read for `FeedRelay.appendsRunningPause` after it;
    /// the relay wakes the host's loop when the pause ends.
    func readStore(after sequence: Int64, topics: Set<String>, limit: Int) throws -> [StoredFeedEvent]
}

/// One listener per machine for a PostgreSQL store's change feed
/// (Protocol/spec.md, "One listener per machine"). The hosts that share a
/// state folder (and store) elect one of them by `flock` on
/// `feed-relay-HASH.lock`; the holder LISTENs on the server, reads each new
/// row once per wake for all of them, and pushes to each host, over
/// `feed-relay-HASH.sock`, the rows of
/// the topics it follows. The others connect and say what they follow and
/// from where (their own cursor), so a new holder serves each from where
/// it stands: when the holder goes, one of them takes the lock over.
///
/// The wake descriptor is an epoll instance over the relay's sockets, so
/// the host's loop waits on one descriptor whatever the role. Nothing is
/// opened before the host first subscribes. A host that follows nothing
/// keeps its role for `lingerNanoseconds`, and a holder keeps it while
/// another host follows something through it: then all is let go. Used on
/// one thread at a time (the host's loop).
public final class FeedRelay: FeedRelaying {
    /// Peers a holder serves at once; more are refused (they read the store themselves).
    static let maxPeers = 4096
    /// A peer with this much unread stops being fed until it reads;
    /// `stallNanoseconds` later it is dropped (it reconnects from its cursor).
    static let peerSoftLimit = 1_048_576
    static let batchSize = 256
    /// Topics one host may follow through the relay; more is garbage.
    static let maxTopics = 1024
    /// Join attempts when the lock is held but its socket does not answer
    /// yet (a holder starting, or exiting), 2 ms apart.
    static let joinAttempts = 25
    /// How often a host that reads the store itself tries to join again,
    /// and how stale the holder's last read may be before its periodic read.
    static let retryNanoseconds: UInt64 = 2_000_000_000
    static let staleNanoseconds: UInt64 = 1_500_000_000
    static let refusedNanoseconds: UInt64 = 100_000_000
    /// How long a host whose read found an append still running waits
    /// before it reads again (`FeedAppendsRunning`), as holder or directly.
    public static let appendsRunningPause: UInt64 = 250_000_000
    /// How long a host that follows nothing keeps its role. A logoff and
    /// the next login then find the relay as they left it: without it, the
    /// holder's host logging off would make another open a new server
    /// connection (a backend and an authentication) for each login.
    static let lingerNanoseconds: UInt64 = 30_000_000_000

    enum Role { case idle, holder, member, direct }

    let folder: String
    let lockPath: String
    let socketPath: String
    /// The socket's name in `folder`, for the address through the folder's descriptor.
    let socketName: String
    /// The state folder, open while the socket's path is too
    /// long for an address of its own (`socketAddress`).
    var folderFD: Int32 = -1
    let openServerWake: () throws -> any FeedSignal
    let read: (Int64, [String], Int) throws -> FeedPage
    let readNoticeKeys: () throws -> FeedNoticeKeys?
    let log: (String) -> Void
    let uid = getuid()

    var role = Role.idle
    var epoll: Int32 = -1
    var lockFD: Int32 = -1
    var serverWake: (any FeedSignal)?
    var serverRegistration: (fd: Int32, opened: Int)?
    var listener: Int32 = -1
    var peers: [Int32: RelayPeer] = [:]
    var member: RelaySocket?

    /// What this host follows, from where, and the generation of that
    /// interest (frames answering an older one are dropped).
    var topics: Set<String> = []
    var hostCursor: Int64 = 0
    var generation: UInt64 = 0
    /// The holder's view of this host as one of its readers.
    var own = RelayInterest()
    /// Rows relayed for this host and not yet read, by sequence.
    var inbox: [StoredFeedEvent] = []
    /// A read is owed (a wake, a new follow).
    var dirty = false
    /// The server connection (its `opened` number) on which the holder's
    /// last complete read was made: while it lasts, every row committed
    /// since comes in its notices (`takeServerNotices`).
    var coveredConnection: Int?
    /// While `coveredConnection` lasts: every number up to here has been
    /// handed on or will never commit.
    var settledThrough: Int64 = 0
    /// No read before this (`appendsRunningPause`); `pauseTimer` wakes the
    /// loop then, so the read owed is not left to the periodic one.
    var readAgainAt: UInt64 = 0
    var pauseTimer: Int32 = -1
    /// Wakes a host that reads the store itself to join the machine's
    /// listener again, though no event comes: a host that started while
    /// the holder was slow to answer would hold a server connection of its
    /// own until then.
    var joinTimer: Int32 = -1
    /// While this host follows nothing: since when, and the timer that
    /// wakes the loop to let go, and meanwhile (a holder still serving
    /// others) to make the periodic read its own host's poll made.
    var idleSince: UInt64?
    var idleTimer: Int32 = -1
    var idleRoundDue = false
    /// `lingerNanoseconds`, a variable for the tests.
    var linger = FeedRelay.lingerNanoseconds
    /// What this host follows cannot be told to a holder (too many topics,
    /// too large a frame): it reads the store itself, without trying to
    /// join again, until it follows something else.
    var unrelayable = false
    /// The store's notice keys (`feed/v4-notice-rows`), read by the holder
    /// once: only a notice whose MAC checks out under them is taken as a row.
    var noticeKeys: FeedNoticeKeys?
    var lastRead: UInt64 = 0
    var nextJoin: UInt64 = 0
    var memberSince: UInt64 = 0
    var quickLosses = 0
    /// How long a peer may leave `peerSoftLimit` unread (a variable for the tests).
    var stallNanoseconds: UInt64 = 5_000_000_000
    private var warnedNoAddress = false

    /// `feed` names the feed (its store's and its LISTEN's URLs): hosts of
    /// different stores that share a state folder get a relay each.
    /// `openServerWake` makes the holder's LISTEN (PostgreSQL: `PostgresFeedSignal`
    /// to the feed URL); `read` reads the feed (the store's `feedEvents`);
    /// `noticeKeys` reads the keys a notice carrying its row is authenticated
    /// with (the store's `feedNoticeKeys`).
    public init(
        folder: String, feed: String, serverWake: @escaping () throws -> any FeedSignal,
        read: @escaping (Int64, [String], Int) throws -> FeedPage,
        noticeKeys: @escaping () throws -> FeedNoticeKeys? = { nil },
        log: @escaping (String) -> Void
    ) {
        self.folder = folder
        let name = Self.fileName(feed)
        lockPath = folder + "/" + name + ".lock"
        socketName = name + ".sock"
        socketPath = folder + "/" + socketName
        openServerWake = serverWake
        self.read = read
        readNoticeKeys = noticeKeys
        self.log = log
    }

    deinit { letGo() }

    public var idleDescriptor: Int32? { role == .idle || epoll < 0 ? nil : epoll }

    /// Whether this host holds the machine's listener now.
    public var isHolder: Bool { role == .holder }
    /// Whether this host reads the store itself (no holder could be reached).
    public var isDirect: Bool { role == .direct }

    // MARK: FeedSignal

    public func listen() -> Int32? {
        if role == .idle { join() }
        if role == .holder || role == .direct { registerServerWake() }
        return epoll >= 0 ? epoll : nil
    }

    /// The server's NOTIFY rings every listener; publishing needs no ring here.
    public func ring() {}

    public func drain() {
        guard epoll >= 0 else { return }
        // On the stack: every host on the machine drains at every event.
        withUnsafeTemporaryAllocation(of: epoll_event.self, capacity: 64) { ready in
            while true {
                let count = epoll_wait(epoll, ready.baseAddress, Int32(ready.count), 0)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for event in ready[0..<Int(count)] { handle(fd: event.data.fd, events: event.events) }
                if count < ready.count { break }
            }
        }
        // After every frame that came with it: a peer's follow in the same
        // batch counts before the holder decides it serves nobody.
        if idleRoundDue {
            idleRoundDue = false
            whileIdle()
        }
        if role == .holder, dirty { serve() }
    }

    // MARK: FeedRelaying

    public func follow(topics: Set<String>, after cursor: Int64) {
        guard !topics.isEmpty else {
            // A host reading the store itself holds a server connection
            // for itself alone: it lets go at once.
            guard role == .holder || role == .member else {
                if role == .direct { letGo() }
                return
            }
            self.topics = []
            idleSince = Self.now()
            announce()
            arm(&idleTimer, after: Self.staleNanoseconds, for: "letting go of the relay", else: "the relay is kept until the host exits")
            return
        }
        idleSince = nil
        self.topics = topics
        hostCursor = cursor
        if unrelayable {
            // Another interest: it may fit where the last did not.
            unrelayable = false
            if role == .direct {
                rejoin(retrying: false)
                return
            }
        }
        if role == .idle { join() }
        announce()
    }

    public func readStore(after sequence: Int64, topics wanted: Set<String>, limit: Int) throws -> [StoredFeedEvent] {
        guard Self.now() >= readAgainAt else { return [] }
        do { return try read(sequence, wanted.sorted(), limit).events } catch is FeedAppendsRunning {
            pauseReads()
            return []
        }
    }

    public func events(after sequence: Int64, topics wanted: Set<String>, limit: Int) -> [StoredFeedEvent]? {
        hostCursor = max(hostCursor, sequence)
        if role == .direct, !unrelayable, Self.now() >= nextJoin {
            nextJoin = Self.now() + Self.retryNanoseconds
            rejoin(retrying: false)
        }
        switch role {
        case .idle, .direct: return nil
        case .holder:
            if dirty || Self.now() - lastRead >= Self.staleNanoseconds { serve() }
        case .member: break
        }
        inbox.removeAll { $0.sequence <= sequence }
        var taken: [StoredFeedEvent] = []
        for event in inbox where wanted.contains(event.topic) {
            taken.append(event)
            if taken.count == limit { break }
        }
        if let last = taken.last {
            inbox.removeAll { $0.sequence <= last.sequence }
            hostCursor = max(hostCursor, last.sequence)
        }
        return taken
    }

    // MARK: Roles

    /// Becomes the holder, or connects to it; reads the store itself when
    /// neither works (each periodic read tries again).
    func join() {
        do {
            try openEpoll()
            try openLock()
        } catch {
            log("change feed: the machine's listener: \(error); this host listens on its own")
            becomeDirect()
            return
        }
        guard socketAddress() != nil else {
            if !warnedNoAddress {
                warnedNoAddress = true
                log("change feed: no address for \(socketPath) (errno \(errno)); this host listens on its own")
            }
            becomeDirect()
            return
        }
        for attempt in 0..<Self.joinAttempts {
            if attempt > 0 { usleep(2000) }
            if flock(lockFD, LOCK_EX | LOCK_NB) == 0 {
                if becomeHolder() { return }
                break
            }
            if let socket = connectToHolder() {
                becomeMember(socket)
                return
            }
        }
        becomeDirect()
    }

    /// Leaves the current role (the holder is gone, or this host reads the
    /// store itself) and joins again, then says what this host follows.
    func rejoin(retrying: Bool) {
        // Following nothing, this host has no reason to join again: a
        // holder is elected among the hosts that follow something.
        if topics.isEmpty {
            letGo()
            return
        }
        // A holder that closes at once, again and again, is refusing this
        // host (it serves `maxPeers` already): read the store, and try again
        // later, rather than connect again at once, forever. Once may be a
        // holder that was exiting as this host connected.
        if role == .member {
            quickLosses = Self.now() - memberSince < Self.refusedNanoseconds ? quickLosses + 1 : 0
        }
        let refused = quickLosses >= 3
        if refused { quickLosses = 0 }
        if let member {
            unregister(member.fd)
            member.close()
            self.member = nil
        }
        role = .idle
        if refused { becomeDirect() } else if retrying { join() } else { joinOnce() }
        // A member needs no server connection of its own.
        if role == .member { closeServerWake() }
        if !topics.isEmpty { announce() }
    }

    private func joinOnce() {
        if flock(lockFD, LOCK_EX | LOCK_NB) == 0, becomeHolder() { return }
        if let socket = connectToHolder() { becomeMember(socket) } else { becomeDirect() }
    }

    /// Tells whoever serves this host what it follows now; rows relayed
    /// for an earlier interest are dropped (they are sent again from the cursor).
    func announce() {
        generation &+= 1
        inbox.removeAll()
        switch role {
        case .holder:
            own = RelayInterest(topics: topics, cursor: hostCursor, generation: generation)
            dirty = true
        case .member:
            guard let member else { return }
            let frame = FeedRelayFrame.follow(generation: generation, cursor: hostCursor, topics: topics.sorted()).encoded()
            if topics.count > Self.maxTopics || frame.count - 4 > FeedRelayFrame.maxFollowBytes {
                log("change feed: what this host follows is too much to tell the machine's listener; this host listens on its own")
                unregister(member.fd)
                member.close()
                self.member = nil
                unrelayable = true
                becomeDirect()
                return
            }
            guard member.send(frame) else {
                // The holder is gone, its end of stream not read yet (a
                // killed holder's sockets close in any order, so this host
                // may even have connected to its listener as it closed):
                // elect again, as on the end of stream. Following nothing,
                // this host has nothing to listen for on its own.
                if topics.isEmpty {
                    letGo()
                } else {
                    rejoin(retrying: true)
                }
                return
            }
            if member.hasPending { watch(member.fd, writable: true) }
        case .idle, .direct:
            break
        }
    }

    private func becomeMember(_ socket: RelaySocket) {
        member = socket
        memberSince = Self.now()
        role = .member
        watch(socket.fd, writable: false)
    }

    private func becomeDirect() {
        role = .direct
        nextJoin = Self.now() + Self.retryNanoseconds
        if serverWake == nil { serverWake = try? openServerWake() }
        if epoll < 0 { try? openEpoll() }
        registerServerWake()
        if !unrelayable {
            arm(&joinTimer, after: Self.retryNanoseconds, for: "joining the machine's listener again", else: "the next read does")
        }
    }

    /// Lets go of everything: the socket, the lock, the server connection.
    func letGo() {
        if role == .holder { resign() }
        if let member {
            member.close()
            self.member = nil
        }
        closeServerWake()
        for timer in [pauseTimer, joinTimer, idleTimer] where timer >= 0 { close(timer) }
        pauseTimer = -1
        joinTimer = -1
        idleTimer = -1
        idleSince = nil
        idleRoundDue = false
        readAgainAt = 0
        if lockFD >= 0 {
            close(lockFD)
            lockFD = -1
        }
        if folderFD >= 0 {
            close(folderFD)
            folderFD = -1
        }
        if epoll >= 0 {
            close(epoll)
            epoll = -1
        }
        role = .idle
        topics = []
        inbox.removeAll()
    }

    // MARK: Descriptors

    private func openEpoll() throws(SystemError) {
        guard epoll < 0 else { return }
        epoll = try RelayCall.check("epoll_create1", epoll_create1(Int32(EPOLL_CLOEXEC)))
    }

    /// The lock file: created 0600 in the state folder (0700), refused if others can reach it.
    private func openLock() throws {
        guard lockFD < 0 else { return }
        try PrivateFile.makeFolders(folder)
        let fd = try RelayCall.check("open \(lockPath)", open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600))
        var info = stat()
        if fstat(fd, &info) != 0 || PrivateFile.problem(at: lockPath, info, uid: uid) != nil {
            close(fd)
            try PrivateFile.check([lockPath])
            throw StoreError("cannot check \(lockPath)")
        }
        lockFD = fd
    }

    /// The socket's address: its path or, when that does not fit in a
    /// `sockaddr_un` (a deep state folder), the same file reached through
    /// the folder's descriptor in /proc/self/fd.
    func socketAddress() -> sockaddr_un? {
        if let address = RelayCall.address(socketPath) { return address }
        if folderFD < 0 { folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard folderFD >= 0 else { return nil }
        return RelayCall.address("/proc/self/fd/\(folderFD)/" + socketName)
    }

    private func connectToHolder() -> RelaySocket? {
        guard let address = socketAddress(),
            let socket = try? RelaySocket.connect(
                to: address, readLimit: FeedRelayFrame.maxEventsBytes, pendingLimit: FeedRelayFrame.maxFollowBytes * 4)
        else { return nil }
        // The holder must be this user's too (the folder is 0700; this is the second lock).
        guard (try? RelayCall.peerUID(socket.fd)) == uid else {
            log("change feed: \(socketPath) is served by another user; refused")
            socket.close()
            return nil
        }
        return socket
    }

    func watch(_ fd: Int32, writable: Bool) {
        var event = epoll_event()
        event.events = UInt32(EPOLLIN.rawValue) | (writable ? UInt32(EPOLLOUT.rawValue) : 0)
        event.data.fd = fd
        if epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event) != 0 { _ = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) }
    }

    func unregister(_ fd: Int32) { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil) }

    /// Keeps the server connection's socket in the epoll set: a new
    /// connection (after a lost one) is added, even under a reused number.
    func registerServerWake() {
        guard let serverWake, epoll >= 0 else { return }
        guard let fd = serverWake.listen() else {
            // The connection is gone (its descriptor left the epoll set as
            // it closed): forget its number, which another socket may reuse.
            serverRegistration = nil
            return
        }
        // Only the holder takes the rows the notices carry; a host reading
        // the store itself would only keep them.
        (serverWake as? FeedNoticeSource)?.keepsNotices = role == .holder
        let opened = serverWake.opened
        if let serverRegistration, serverRegistration.fd == fd, serverRegistration.opened == opened { return }
        if let old = serverRegistration, old.fd != fd { unregister(old.fd) }
        watch(fd, writable: false)
        serverRegistration = (fd, opened)
        // Events committed while there was no connection are read now.
        dirty = true
    }

    func closeServerWake() {
        if let serverRegistration { unregister(serverRegistration.fd) }
        serverRegistration = nil
        serverWake = nil
    }

    /// `feed-relay-` and 16 hex digits of the feed's name (FNV-1a, 64 bits):
    /// stable across hosts and builds, and short enough for a socket path.
    static func fileName(_ feed: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in feed.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return "feed-relay-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
