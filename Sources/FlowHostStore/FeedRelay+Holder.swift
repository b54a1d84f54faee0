#if canImport(Glibc)
import CEpoll
import Glibc
#endif

/// What a reader of the holder follows, from where, and the generation of
/// the follow that said so (the holder tags what it sends with it).
struct RelayInterest {
    var topics: Set<String> = []
    var cursor: Int64 = 0
    var generation: UInt64 = 0
}

/// Another host of this machine, connected to the holder.
final class RelayPeer {
    let socket: RelaySocket
    var interest = RelayInterest()
    /// When the holder stopped feeding it because it was not reading.
    var stalledSince: UInt64?

    init(socket: RelaySocket) { self.socket = socket }
}

/// The holder's side: the lock is held; it accepts the other hosts, reads
/// each new row once for all of them and pushes each its share.
extension FeedRelay {
    /// Binds the socket (this host holds the lock) and opens the LISTEN.
    /// False: the socket could not be served; the lock is let go.
    func becomeHolder() -> Bool {
        guard let address = socketAddress() else {
            flock(lockFD, LOCK_UN)
            return false
        }
        do {
            // Only the lock's holder touches the path: a killed holder's socket file goes.
            unlink(socketPath)
            let fd = try RelayCall.newSocket()
            do {
                try RelayCall.check("bind \(socketPath)", RelayCall.withAddress(address) { bind(fd, $0, $1) })
                try RelayCall.check("chmod \(socketPath)", chmod(socketPath, 0o600))
                // A machine's hosts subscribe in a burst when they start
                // together: a backlog as deep as the peers served queues them
                // (the kernel caps it at somaxconn), where a full one sends
                // each to a LISTEN connection of its own on the server.
                try RelayCall.check("listen \(socketPath)", Glibc.listen(fd, Int32(Self.maxPeers)))
            } catch {
                close(fd)
                throw error
            }
            listener = fd
        } catch {
            log("change feed: cannot serve the machine's listener: \(error); this host listens on its own")
            flock(lockFD, LOCK_UN)
            return false
        }
        role = .holder
        watch(listener, writable: false)
        if serverWake == nil {
            do { serverWake = try openServerWake() } catch { log("change feed: \(error)") }
        }
        registerServerWake()
        dirty = true
        return true
    }

    /// Gives the listener up: the socket file goes before the lock, so a
    /// new holder's socket is never removed; the peers, told by their end
    /// of stream, elect again.
    func resign() {
        unlink(socketPath)
        if listener >= 0 {
            unregister(listener)
            close(listener)
            listener = -1
        }
        flock(lockFD, LOCK_UN)
        for peer in peers.values { drop(peer) }
        own = RelayInterest()
    }

    func handle(fd: Int32, events: UInt32) {
        if fd == listener {
            acceptPeers()
        } else if let registration = serverRegistration, fd == registration.fd {
            serverWake?.drain()
            registerServerWake()  // at once, should the drain have found the connection lost
            takeServerNotices()
        } else if fd == pauseTimer {
            consumeExpiry(of: pauseTimer)
            readAgainAt = 0
            dirty = true
        } else if fd == idleTimer {
            consumeExpiry(of: idleTimer)
            idleRoundDue = true
        } else if fd == joinTimer {
            consumeExpiry(of: joinTimer)
            if role == .direct { rejoin(retrying: false) }
        } else if let member, fd == member.fd {
            receiveFromHolder(member, events)
        } else if let peer = peers[fd] {
            receive(from: peer, events)
        } else {
            unregister(fd)
        }
    }

    /// Reads a timer's expiry count, so that it is not readable again until it next fires.
    private func consumeExpiry(of timer: Int32) {
        var expirations: UInt64 = 0
        _ = Glibc.read(timer, &expirations, 8)
    }

    private func acceptPeers() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
                close(fd)
                continue
            }
            let peerUID = try? RelayCall.peerUID(fd)
            guard peerUID == uid, peers.count < Self.maxPeers else {
                log("change feed: refused a connection to the machine's listener (uid \(peerUID.map(String.init) ?? "unknown"), \(peers.count) peers)")
                close(fd)
                continue
            }
            peers[fd] = RelayPeer(
                socket: RelaySocket(fd: fd, readLimit: FeedRelayFrame.maxFollowBytes, pendingLimit: Self.peerSoftLimit + FeedRelayFrame.maxEventsBytes))
            watch(fd, writable: false)
        }
    }

    private func receive(from peer: RelayPeer, _ events: UInt32) {
        if events & UInt32(EPOLLOUT.rawValue) != 0 {
            guard peer.socket.flush() else { return drop(peer) }
            if !peer.socket.hasPending {
                watch(peer.socket.fd, writable: false)
                if peer.stalledSince != nil {
                    peer.stalledSince = nil
                    dirty = true
                }
            }
        }
        guard events & UInt32(EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 else { return }
        do {
            for frame in try peer.socket.receive() {
                guard case let .follow(generation, cursor, topics) = frame else {
                    throw FeedRelayFrameReader.Garbage(description: "an events frame from a reader")
                }
                guard topics.count <= Self.maxTopics else {
                    throw FeedRelayFrameReader.Garbage(description: "a follow of \(topics.count) topics (the bound is \(Self.maxTopics))")
                }
                peer.interest = RelayInterest(topics: Set(topics), cursor: cursor, generation: generation)
                dirty = true
            }
        } catch let garbage as FeedRelayFrameReader.Garbage {
            log("change feed: a host on the machine's listener sent \(garbage); dropped")
            drop(peer)
        } catch {
            drop(peer)
        }
    }

    func drop(_ peer: RelayPeer) {
        unregister(peer.socket.fd)
        peers[peer.socket.fd] = nil
        peer.socket.close()
    }

    private func receiveFromHolder(_ socket: RelaySocket, _ events: UInt32) {
        var lost = false
        if events & UInt32(EPOLLOUT.rawValue) != 0 {
            if !socket.flush() { lost = true } else if !socket.hasPending { watch(socket.fd, writable: false) }
        }
        if !lost {
            do {
                for frame in try socket.receive() {
                    guard case let .events(generation, rows) = frame else {
                        throw FeedRelayFrameReader.Garbage(description: "a follow frame from the holder")
                    }
                    if generation == self.generation { take(rows) }
                }
            } catch let garbage as FeedRelayFrameReader.Garbage {
                log("change feed: the machine's listener sent \(garbage)")
                lost = true
            } catch {
                lost = true
            }
        }
        // The holder is gone: take its place, or join whoever did, from this host's cursor.
        if lost { rejoin(retrying: true) }
    }

    /// Keeps relayed rows newer than any held, in order.
    private func take(_ rows: [StoredFeedEvent]) {
        var newest = inbox.last?.sequence ?? hostCursor
        for row in rows where row.sequence > newest {
            inbox.append(row)
            newest = row.sequence
        }
    }

    /// The server's notices since the last wake. A connection's notices
    /// come in commit order, so after a complete read on this same
    /// connection they bring every row committed since; appends overlap, so
    /// not always in number order. A row whose number is the next after
    /// everything settled goes to the readers with no read. A gap (an
    /// append still running, or one that rolled back), a notice without its
    /// row (a large one), one whose MAC does not check out under the store's
    /// keys (any session may send one), a new connection, or a read owed
    /// anyway (a new follow) means a read, which waits for the appends in
    /// flight (`FlowStore.readFeed`).
    func takeServerNotices() {
        let notices = (serverWake as? FeedNoticeSource)?.takeNotices() ?? [.unreadable]
        guard !dirty, let covered = coveredConnection, covered == serverRegistration?.opened else {
            dirty = true
            return
        }
        var rows: [StoredFeedEvent] = []
        for notice in notices {
            guard case .row(let row, let mac, let text) = notice, let noticeKeys, noticeKeys.authenticates(text, mac: mac) else {
                dirty = true
                break
            }
            // A replayed notice, or a row a read has handed on already.
            if row.sequence <= settledThrough { continue }
            guard row.sequence == settledThrough + 1 else {
                dirty = true
                break
            }
            rows.append(row)
            settledThrough = row.sequence
        }
        guard let last = rows.last else { return }
        hand(rows, through: last.sequence, to: activePeers(), at: Self.now())
    }

    /// The idle timer's round while this host follows nothing: a holder
    /// that others follow through keeps the role and reads when its last
    /// read is stale; any other lets go once it has lingered long enough.
    func whileIdle() {
        guard let idleSince, topics.isEmpty else { return }
        let now = Self.now()
        if role == .holder, !activePeers().isEmpty {
            self.idleSince = now
            // As the host's loop does while it follows something: a lost
            // LISTEN connection is opened again.
            registerServerWake()
            if dirty || now - lastRead >= Self.staleNanoseconds { serve() }
        } else if now - idleSince >= linger {
            letGo()
            return
        }
        arm(&idleTimer, after: Self.staleNanoseconds, for: "letting go of the relay", else: "the relay is kept until the host exits")
    }

    /// After a read that found an append still running: each attempt holds
    /// the appends queued behind it, and this host's loop, a moment, so the
    /// next waits `appendsRunningPause` and the timer wakes the loop for it.
    func pauseReads() {
        readAgainAt = Self.now() + Self.appendsRunningPause
        arm(&pauseTimer, after: Self.appendsRunningPause, for: "the pause after a read", else: "the periodic read makes it")
    }

    /// Arms `timer` (made, and watched, on first use) to wake the loop
    /// `nanoseconds` from now; a timer that cannot be made or armed is
    /// logged with what stands in for it.
    func arm(_ timer: inout Int32, after nanoseconds: UInt64, for purpose: String, else fallback: String) {
        guard epoll >= 0 else { return }
        if timer < 0 {
            timer = fh_timer_new()
            guard timer >= 0 else {
                log("change feed: no timer for \(purpose) (errno \(errno)); \(fallback)")
                return
            }
            watch(timer, writable: false)
        }
        if fh_timer_after(timer, nanoseconds) != 0 {
            log("change feed: arming the timer for \(purpose) failed (errno \(errno)); \(fallback)")
        }
    }

    /// Readers being fed now: following something, and not stalled.
    private func activePeers() -> [RelayPeer] {
        peers.values.filter { !$0.interest.topics.isEmpty && $0.stalledSince == nil }
    }

    /// Reads the rows after the lowest cursor once, on every topic followed
    /// on this machine, and hands each reader its share. A reader's cursor
    /// moves past every row read (its own or not); one that has too much
    /// unread is skipped until it reads, and dropped if it never does.
    func serve() {
        guard Self.now() >= readAgainAt else { return }
        dirty = false
        coveredConnection = nil
        let connection = serverRegistration?.opened
        lastRead = Self.now()
        for peer in Array(peers.values) where peer.stalledSince.map({ lastRead - $0 > stallNanoseconds }) ?? false {
            log("change feed: a host on the machine's listener left its events unread; dropped")
            drop(peer)
        }
        let active = activePeers()
        var union = own.topics
        var from = own.topics.isEmpty ? Int64.max : own.cursor
        for peer in active {
            union.formUnion(peer.interest.topics)
            from = min(from, peer.interest.cursor)
        }
        guard !union.isEmpty else { return }
        if noticeKeys == nil {
            do { noticeKeys = try readNoticeKeys() } catch { log("change feed: reading the notice keys failed: \(error)") }
        }
        let topics = union.sorted()
        while true {
            let page: FeedPage
            do { page = try read(from, topics, Self.batchSize) } catch is FeedAppendsRunning {
                dirty = true
                pauseReads()
                return
            } catch {
                log("change feed: reading failed: \(error)")
                return
            }
            if page.through > from {
                hand(page.events, through: page.through, to: active, at: lastRead)
                from = page.through
            }
            if page.events.count < Self.batchSize {
                // Read to the end on a connection that was listening before the read began.
                if connection != nil, connection == serverRegistration?.opened {
                    coveredConnection = connection
                    settledThrough = page.through
                }
                return
            }
        }
    }

    /// Gives this host and each reader its share of `batch`, every row after
    /// their cursors through `last`; `now` dates a reader found stalled.
    private func hand(_ batch: [StoredFeedEvent], through last: Int64, to active: [RelayPeer], at now: UInt64) {
        if !own.topics.isEmpty {
            for event in batch where event.sequence > own.cursor && own.topics.contains(event.topic) { inbox.append(event) }
            own.cursor = max(own.cursor, last)
        }
        for peer in active where !peer.socket.isClosed && peer.stalledSince == nil { feed(peer, batch, through: last, at: now) }
    }

    private func feed(_ peer: RelayPeer, _ batch: [StoredFeedEvent], through last: Int64, at now: UInt64) {
        var rows: [StoredFeedEvent] = []
        var bytes = 0
        var cursor = peer.interest.cursor
        var complete = true
        for event in batch where event.sequence > cursor && peer.interest.topics.contains(event.topic) {
            guard FeedRelayFrame.fits(event) else {
                log("change feed: event \(event.sequence) is too large to relay; skipped")
                cursor = event.sequence
                continue
            }
            if peer.socket.pendingCount + bytes >= Self.peerSoftLimit {
                complete = false
                break
            }
            rows.append(event)
            bytes += FeedRelayFrame.encodedSize(event)
            cursor = event.sequence
        }
        peer.interest.cursor = complete ? max(cursor, last) : cursor
        for frame in FeedRelayFrame.eventFrames(generation: peer.interest.generation, rows) where !peer.socket.send(frame) {
            return drop(peer)
        }
        if peer.socket.hasPending { watch(peer.socket.fd, writable: true) }
        if !complete { peer.stalledSince = now }
    }
}
