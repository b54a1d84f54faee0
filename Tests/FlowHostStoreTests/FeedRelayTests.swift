import FlowHostPOSIX
import Foundation
import Testing
@testable import FlowHostStore

/// The feed relay's frames, and two relays of one folder over a real SQLite
/// store, woken by its real feed file in place of PostgreSQL's NOTIFY.
@Suite struct FeedRelayTests {
    let scratch: TemporaryFolder
    init() throws { scratch = try TemporaryFolder() }

    static let events = [
        StoredFeedEvent(sequence: 7, topic: "echo.a", payload: #"{"n":1}"#, at: 1_700_000_000),
        StoredFeedEvent(sequence: 9, topic: "echo.é", payload: "{}", at: -1),
    ]

    @Test func framesRoundTripWhateverTheCuts() throws {
        let frames: [FeedRelayFrame] = [
            .follow(generation: 3, cursor: 42, topics: ["echo.a", "session.ended"]),
            .events(generation: .max, Self.events),
            .follow(generation: 0, cursor: -1, topics: []),
        ]
        let bytes = frames.flatMap { $0.encoded() }
        for cut in [1, 3, 7, bytes.count] {
            var reader = FeedRelayFrameReader(limit: FeedRelayFrame.maxEventsBytes)
            var read: [FeedRelayFrame] = []
            var index = 0
            while index < bytes.count {
                reader.push(Array(bytes[index..<min(index + cut, bytes.count)]))
                index += cut
                while let frame = try reader.next() { read.append(frame) }
            }
            #expect(read == frames)
        }
    }

    @Test func garbageIsRefusedBeforeAnythingIsAllocated() {
        func refused(_ bytes: [UInt8], limit: Int = FeedRelayFrame.maxFollowBytes) -> Bool {
            var reader = FeedRelayFrameReader(limit: limit)
            reader.push(bytes)
            do {
                _ = try reader.next()
                return false
            } catch { return true }
        }
        func frame(_ body: [UInt8]) -> [UInt8] {
            [UInt8(body.count >> 24), UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)] + body
        }
        #expect(refused([0xFF, 0xFF, 0xFF, 0xFF]))  // over the bound
        #expect(refused([0, 0, 0, 0]))  // empty
        #expect(refused(frame([9])))  // unknown kind
        #expect(refused(frame([1] + [UInt8](repeating: 0, count: 8))))  // cut short
        #expect(refused(frame([1] + [UInt8](repeating: 0, count: 18) + [0])))  // a byte after the body
        #expect(refused(frame([2] + [UInt8](repeating: 0, count: 8) + [0xFF, 0xFF, 0xFF, 0xFF])))  // more events than bytes
        #expect(refused(frame([1] + [UInt8](repeating: 0, count: 16) + [0, 1, 0, 2, 0xFF, 0xFE])))  // not UTF-8
        // A whole frame over a reader's bound, even a well-formed one.
        let big = FeedRelayFrame.follow(generation: 1, cursor: 0, topics: [String](repeating: String(repeating: "t", count: 1000), count: 70)).encoded()
        #expect(refused(big))
        // A partial frame is only waiting.
        var reader = FeedRelayFrameReader(limit: 100)
        reader.push([0, 0, 0, 5, 1])
        #expect((try? reader.next()) == .some(nil))
    }

    @Test func anEventTooLargeToRelayIsLeftOutAndFramesStayUnderTheBound() {
        let big = StoredFeedEvent(sequence: 1, topic: "t", payload: String(repeating: "x", count: FeedRelayFrame.maxEventsBytes), at: 0)
        let medium = (2...40).map { StoredFeedEvent(sequence: Int64($0), topic: "t", payload: String(repeating: "y", count: 60_000), at: 0) }
        let frames = FeedRelayFrame.eventFrames(generation: 1, [big] + medium)
        #expect(frames.count > 1 && frames.allSatisfy { $0.count <= FeedRelayFrame.maxEventsBytes })
        var reader = FeedRelayFrameReader(limit: FeedRelayFrame.maxEventsBytes)
        var sequences: [Int64] = []
        for frame in frames {
            reader.push(frame)
            if case let .events(_, rows) = try? reader.next() { sequences += rows.map(\.sequence) }
        }
        #expect(sequences == Array(2...40))
    }

    @Test func aNoticeCarriesItsRowOrItsNumberOrNeither() {
        let text = "12\n1700000000\necho.a\n{\"n\":\"a\\nb\"}"
        #expect(FeedNotice(Substring("m1\n" + text)) == .row(StoredFeedEvent(sequence: 12, topic: "echo.a", payload: #"{"n":"a\nb"}"#, at: 1_700_000_000), mac: "m1", text: text))
        #expect(FeedNotice("m1\n12\n-1\necho.a\nline one\nline two") == .row(StoredFeedEvent(sequence: 12, topic: "echo.a", payload: "line one\nline two", at: -1), mac: "m1", text: "12\n-1\necho.a\nline one\nline two"), "the payload is the rest")
        #expect(FeedNotice("m1\n12\n0\necho.a\n") == .row(StoredFeedEvent(sequence: 12, topic: "echo.a", payload: "", at: 0), mac: "m1", text: "12\n0\necho.a\n"))
        #expect(FeedNotice("12") == .sequence(12))
        for garbage in ["", "x", "12\n", "m\n12\n0\necho.a", "m\n12\nx\necho.a\n{}", "m\n12\n0\n\n{}", "\n12\n0\necho.a\n{}", "12\n0\necho.a\n{}", "1.5"] {
            #expect(FeedNotice(Substring(garbage)) == .unreadable, "\(garbage.debugDescription)")
        }
    }

    /// The trigger's MAC, SHA-256(outer ‖ SHA-256(inner ‖ text)), checked
    /// against a value computed apart (Python's hashlib, these keys and text).
    @Test func aNoticesMacChecksOutOnlyUnderTheStoresKeys() throws {
        let keys = try #require(FeedNoticeKeys(innerHex: String(repeating: "01", count: 32), outerHex: String(repeating: "02", count: 32)))
        let text = "7\n5\necho.a\n{}"
        let mac = "0c21a0ea2b1c2e1c1e36d7e0b5a1d9f5ed3c0dbbd54c9bb2c4e5d9e5a4b5e2f1"
        #expect(keys.mac(of: text) == Self.expectedMac)
        #expect(keys.authenticates(text, mac: Self.expectedMac))
        #expect(!keys.authenticates(text + " ", mac: Self.expectedMac), "another text")
        #expect(!keys.authenticates(text, mac: mac), "another MAC")
        #expect(!keys.authenticates(text, mac: String(Self.expectedMac.dropLast(2))), "a short MAC")
        let others = try #require(FeedNoticeKeys(innerHex: String(repeating: "02", count: 32), outerHex: String(repeating: "01", count: 32)))
        #expect(!others.authenticates(text, mac: Self.expectedMac), "another store's keys")
        #expect(FeedNoticeKeys(innerHex: "0102", outerHex: String(repeating: "02", count: 32)) == nil, "a key too short")
        #expect(FeedNoticeKeys(innerHex: String(repeating: "zz", count: 32), outerHex: String(repeating: "02", count: 32)) == nil)
    }
    static let expectedMac = "c19d9c6f59f2d4c69ad375732fe8b1843ed2195c436f77b6915bf9c26ebbfc0c"

    /// The store's wake-up file, with notices the test puts in as the
    /// PostgreSQL trigger would (`feed/v4-notice-rows`).
    final class NoticeWake: FeedSignal, FeedNoticeSource {
        let wake: FeedWake
        var keepsNotices = false
        var pending: [FeedNotice] = []
        /// The server connection is lost, and cannot be opened again yet.
        var gone = false
        init(path: String) throws { wake = try FeedWake(path: path) }
        func listen() -> Int32? { gone ? nil : wake.listen() }
        func ring() { wake.ring() }
        func drain() { wake.drain() }
        var opened: Int { wake.opened }
        func takeNotices() -> [FeedNotice] {
            defer { pending = [] }
            return keepsNotices ? pending : []
        }
    }

    /// A host of the folder: a relay over the store, counting its own reads.
    final class Host {
        /// The store's notice keys, in place of `feed_notice_key`'s.
        static let noticeKeys = FeedNoticeKeys(innerHex: String(repeating: "a5", count: 32), outerHex: String(repeating: "5a", count: 32))!
        let relay: FeedRelay
        var reads = 0
        /// Reads that find an append still running, as PostgreSQL's would while a writer holds its transaction open.
        var runningAppends = 0
        /// The holder's wake-up, when it has one with notices.
        var noticeWake: NoticeWake?
        /// Server connections this host's relay opened for itself.
        var serverWakes = 0
        init(folder: String, store: SQLiteStore, feedFile: String, notices: Bool = false) {
            let keys = notices ? Self.noticeKeys : nil
            var counted: (() throws -> Void)?
            var made: ((NoticeWake) -> Void)?
            var opened: (() -> Void)?
            relay = FeedRelay(
                folder: folder, feed: "test",
                serverWake: {
                    opened?()
                    guard notices else { return try FeedWake(path: feedFile) }
                    let wake = try NoticeWake(path: feedFile)
                    made?(wake)
                    return wake
                },
                read: { after, topics, limit in
                    try counted?()
                    return try store.readFeed(after: after, topics: topics, limit: limit)
                }, noticeKeys: { keys }, log: { _ in })
            counted = { [unowned self] in
                self.reads += 1
                if self.runningAppends > 0 {
                    self.runningAppends -= 1
                    throw FeedAppendsRunning()
                }
            }
            made = { [unowned self] in self.noticeWake = $0 }
            opened = { [unowned self] in self.serverWakes += 1 }
        }

        /// Waits for the relay's descriptor, then drains it.
        func settle(milliseconds: Int32 = 200) {
            guard let fd = relay.listen() else { return }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while poll(&descriptor, 1, milliseconds) > 0 {
                relay.drain()
                descriptor.revents = 0
            }
        }

        func events(after cursor: Int64) -> [Int64]? { relay.events(after: cursor, topics: ["echo.a"], limit: 256)?.map(\.sequence) }
    }

    /// A state folder and a store the test's hosts share, and the store's wake-up file.
    func sharedStore() throws -> (folder: String, store: SQLiteStore, feedFile: String, ring: FeedWake) {
        let store = try SQLiteStore(path: scratch.path + "/store.sqlite", schema: SchemaMigrator({ _ in }))
        let feedFile = scratch.path + "/store.sqlite.feed"
        return (scratch.path + "/state", store, feedFile, try FeedWake(path: feedFile))
    }

    /// Two hosts of one folder following echo.a from 0, settled: the first
    /// holds the listener (with notices that carry rows, if asked), the
    /// second is its member.
    func holderAndMember(notices: Bool = false) throws -> (holder: Host, member: Host, store: SQLiteStore, ring: FeedWake) {
        let (folder, store, feedFile, ring) = try sharedStore()
        let holder = Host(folder: folder, store: store, feedFile: feedFile, notices: notices)
        let member = Host(folder: folder, store: store, feedFile: feedFile)
        holder.relay.follow(topics: ["echo.a"], after: 0)
        member.relay.follow(topics: ["echo.a"], after: 0)
        holder.settle()
        member.settle()
        return (holder, member, store, ring)
    }

    /// Appends one echo.a event and rings the store's wake-up file; its number.
    @discardableResult
    func publishOne(_ store: SQLiteStore, _ ring: FeedWake) throws -> Int64 {
        let sequence = try store.write { try $0.appendFeedEvent(topic: "echo.a", payload: "{}", at: 0) }
        ring.ring()
        return sequence
    }

    /// Runs the hosts' loops for `milliseconds`: each waits on its relay's
    /// descriptor (the idle one while it follows nothing) and drains it.
    func run(_ hosts: [Host], milliseconds: UInt64) {
        let deadline = FeedRelay.now() + milliseconds * 1_000_000
        while FeedRelay.now() < deadline {
            for host in hosts {
                guard let fd = host.relay.topics.isEmpty ? host.relay.idleDescriptor : host.relay.listen() else { continue }
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 10) > 0 { host.relay.drain() }
            }
            usleep(1000)
        }
    }

    /// Takes the listener's lock in `folder` as a holder that never answers would.
    func holdTheLock(_ folder: String) throws -> Int32 {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let lock = open(folder + "/" + FeedRelay.fileName("test") + ".lock", O_RDWR | O_CREAT, 0o600)
        try #require(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
        return lock
    }

    @Test func oneHolderReadsForBothAndTheOtherTakesOverWhenItGoes() throws {
        let (folder, store, feedFile, ring) = try sharedStore()
        func publish(_ topic: String) throws {
            try store.write { try $0.appendFeedEvent(topic: topic, payload: "{}", at: 0) }
            ring.ring()
        }

        var first: Host? = Host(folder: folder, store: store, feedFile: feedFile)
        let second = Host(folder: folder, store: store, feedFile: feedFile)
        first!.relay.follow(topics: ["echo.a"], after: 0)
        second.relay.follow(topics: ["echo.a"], after: 0)
        #expect(first!.relay.isHolder && !second.relay.isHolder && !second.relay.isDirect)
        first!.settle()
        second.settle()

        try publish("echo.a")
        try publish("echo.b")
        try publish("echo.a")
        first!.settle()
        second.settle()
        #expect(first!.events(after: 0) == [1, 3])
        #expect(second.events(after: 0) == [1, 3])
        #expect(second.reads == 0, "the member never reads the store")
        let holderReads = first!.reads
        #expect(holderReads >= 1)

        // The holder goes (its lock and socket with it): the member takes
        // over and serves itself from its own cursor.
        try publish("echo.a")
        first = nil
        second.settle()
        #expect(second.relay.isHolder)
        try publish("echo.a")
        second.settle()
        #expect(second.events(after: 3) == [4, 5])
        #expect(second.events(after: 5) == [])
    }

    /// After a complete read, the rows the server's notices carry go to
    /// every reader with no read; a notice without its row, or a new follow,
    /// means a read again.
    @Test func theHolderHandsOnTheRowsItsNoticesCarryWithoutReadingThem() throws {
        let (holder, member, store, ring) = try holderAndMember(notices: true)
        let wake = try #require(holder.noticeWake)
        #expect(wake.keepsNotices, "the holder keeps its notices")
        let readsBefore = holder.reads
        func publish(_ topic: String, carried: Bool = true) throws {
            let sequence = try store.write { try $0.appendFeedEvent(topic: topic, payload: #"{"t":"\#(topic)"}"#, at: 5) }
            let row = StoredFeedEvent(sequence: sequence, topic: topic, payload: #"{"t":"\#(topic)"}"#, at: 5)
            let text = "\(sequence)\n5\n\(topic)\n" + row.payload
            wake.pending.append(carried ? .row(row, mac: Host.noticeKeys.mac(of: text), text: text) : .sequence(sequence))
            ring.ring()
        }
        try publish("echo.a")
        try publish("echo.b")
        try publish("echo.a")
        holder.settle()
        member.settle()
        #expect(holder.events(after: 0) == [1, 3])
        #expect(member.events(after: 0) == [1, 3])
        #expect(holder.reads == readsBefore, "no read for rows the notices carried")

        try publish("echo.a", carried: false)  // too large to carry: read
        holder.settle()
        member.settle()
        #expect(member.events(after: 3) == [4])
        #expect(holder.reads == readsBefore + 1)

        member.relay.follow(topics: ["echo.a", "echo.b"], after: 0)  // a new follow: read, from its cursor
        try publish("echo.b")
        holder.settle()
        member.settle()
        #expect(member.relay.events(after: 0, topics: ["echo.a", "echo.b"], limit: 256)?.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(holder.reads > readsBefore + 1)
        #expect(member.reads == 0)

        // A notice any session of the database sent, without the store's
        // keys: not taken as a row, and no cursor moves past what is real.
        let readsBeforeForgery = holder.reads
        let forged = "1000000\n0\necho.a\n{}"
        let otherKeys = FeedNoticeKeys(innerHex: String(repeating: "a5", count: 32), outerHex: String(repeating: "a5", count: 32))!
        wake.pending.append(.row(StoredFeedEvent(sequence: 1_000_000, topic: "echo.a", payload: "{}", at: 0), mac: otherKeys.mac(of: forged), text: forged))
        ring.ring()
        holder.settle()
        member.settle()
        #expect(holder.reads == readsBeforeForgery + 1, "a read instead")
        try publish("echo.a")
        holder.settle()
        member.settle()
        #expect(holder.events(after: 3) == [4, 6])
        #expect(member.relay.events(after: 5, topics: ["echo.a", "echo.b"], limit: 256)?.map(\.sequence) == [6])
    }

    /// Appends overlap on PostgreSQL and commit in any order: a notice
    /// whose number is not the next after everything read means a read
    /// (the append between may still commit), and a late notice of a row
    /// read already is dropped.
    @Test func aGapInTheNoticesMeansAReadAndALateNoticeIsDropped() throws {
        let (holder, member, store, ring) = try holderAndMember(notices: true)
        let wake = try #require(holder.noticeWake)
        func notice(_ sequence: Int64) -> FeedNotice {
            let row = StoredFeedEvent(sequence: sequence, topic: "echo.a", payload: "{}", at: 5)
            let text = "\(sequence)\n5\necho.a\n{}"
            return .row(row, mac: Host.noticeKeys.mac(of: text), text: text)
        }
        let readsBefore = holder.reads
        #expect(try store.write { try $0.appendFeedEvent(topic: "echo.a", payload: "{}", at: 5) } == 1)
        #expect(try store.write { try $0.appendFeedEvent(topic: "echo.a", payload: "{}", at: 5) } == 2)
        wake.pending.append(notice(2))  // 2 committed first; 1's notice comes later
        ring.ring()
        holder.settle()
        member.settle()
        #expect(holder.reads == readsBefore + 1, "a gap: read")
        #expect(member.events(after: 0) == [1, 2])
        wake.pending.append(notice(1))
        ring.ring()
        holder.settle()
        member.settle()
        #expect(holder.reads == readsBefore + 1, "a row read already: no read")
        #expect(member.events(after: 2) == [])

        #expect(try store.write { try $0.appendFeedEvent(topic: "echo.a", payload: "{}", at: 5) } == 3)
        wake.pending.append(notice(3))  // the next number: handed on with no read
        ring.ring()
        holder.settle()
        member.settle()
        #expect(member.events(after: 2) == [3])
        #expect(holder.reads == readsBefore + 1)
    }

    /// A read that finds an append still running is made again once the
    /// pause is over, woken by the relay's own timer: not left to a wake
    /// that may never come, nor to the periodic read.
    @Test func aReadThatFindsAnAppendRunningIsMadeAgainAfterThePause() throws {
        let (holder, member, store, ring) = try holderAndMember()
        let readsBefore = holder.reads
        holder.runningAppends = 1
        try store.write { _ = try $0.appendFeedEvent(topic: "echo.a", payload: "{}", at: 5) }
        ring.ring()
        holder.settle(milliseconds: 50)
        #expect(holder.reads == readsBefore + 1, "the read that found the append running")
        holder.settle(milliseconds: Int32(FeedRelay.appendsRunningPause / 1_000_000) * 2)
        #expect(holder.reads == readsBefore + 2, "made again when the pause ended, with no other wake")
        member.settle()
        #expect(member.events(after: 0) == [1])
    }

    @Test func aHostReadingDirectlyPausesAfterARunningAppendAndIsWokenWhenThePauseEnds() throws {
        let (folder, store, feedFile, _) = try sharedStore()
        // The listener's lock is held and nobody answers on its socket (a
        // holder that hangs): the host reads the store itself.
        let lock = try holdTheLock(folder)
        defer { close(lock) }
        let host = Host(folder: folder, store: store, feedFile: feedFile)
        host.relay.follow(topics: ["echo.a"], after: 0)
        #expect(host.relay.isDirect)
        try store.write { _ = try $0.appendFeedEvent(topic: "echo.a", payload: "{}", at: 5) }
        host.runningAppends = 1
        #expect(try host.relay.readStore(after: 0, topics: ["echo.a"], limit: 256).isEmpty)
        #expect(try host.relay.readStore(after: 0, topics: ["echo.a"], limit: 256).isEmpty, "paused")
        #expect(host.reads == 1, "no read during the pause")
        guard let fd = host.relay.listen() else {
            Issue.record("a host reading directly waits on the relay's descriptor")
            return
        }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&descriptor, 1, Int32(FeedRelay.appendsRunningPause / 1_000_000) * 2) == 1, "woken when the pause ends")
        host.relay.drain()
        #expect(try host.relay.readStore(after: 0, topics: ["echo.a"], limit: 256).map(\.sequence) == [1])
        #expect(host.reads == 2)
    }

    @Test func aHostReadingDirectlyJoinsTheListenerWhenItAnswersThoughNoEventComes() throws {
        let (folder, store, feedFile, _) = try sharedStore()
        let lock = try holdTheLock(folder)
        let late = Host(folder: folder, store: store, feedFile: feedFile)
        late.relay.follow(topics: ["echo.a"], after: 0)
        #expect(late.relay.isDirect, "the lock is held and nobody answers")
        close(lock)
        let holder = Host(folder: folder, store: store, feedFile: feedFile)
        holder.relay.follow(topics: ["echo.a"], after: 0)
        #expect(holder.relay.isHolder)
        holder.settle()
        late.settle(milliseconds: Int32(FeedRelay.retryNanoseconds / 1_000_000) + 500)
        #expect(!late.relay.isDirect && !late.relay.isHolder, "a member now, woken by its own timer")
    }

    @Test func aHostWhoseInterestCannotBeRelayedDoesNotTryAgainUntilItChanges() throws {
        let (holder, member, _, _) = try holderAndMember()
        #expect(!member.relay.isDirect)
        let many = Set((0...FeedRelay.maxTopics).map { "echo.t\($0)" })
        member.relay.follow(topics: many, after: 0)
        #expect(member.relay.isDirect, "too many topics to tell the holder")
        let opened = member.serverWakes
        // Bounded: a host that tried again would wake every retry interval.
        let deadline = FeedRelay.now() + FeedRelay.retryNanoseconds + 500_000_000
        while FeedRelay.now() < deadline {
            holder.settle(milliseconds: 50)
            member.settle(milliseconds: 50)
        }
        #expect(member.relay.isDirect)
        #expect(member.serverWakes == opened, "no new server connection, no join attempt")
        member.relay.follow(topics: ["echo.a"], after: 0)
        #expect(!member.relay.isDirect && !member.relay.isHolder, "a member again once its interest fits")
    }

    /// A logoff, then a login: the hosts keep their places, and the
    /// holder its server connection, rather than elect and connect again.
    @Test func aHostThatFollowsNothingKeepsItsPlaceAWhileThenLetsGo() throws {
        let (holder, member, store, ring) = try holderAndMember()
        let opened = holder.serverWakes
        holder.relay.follow(topics: [], after: 0)
        member.relay.follow(topics: [], after: 0)
        #expect(holder.relay.isHolder && holder.relay.idleDescriptor != nil && member.relay.idleDescriptor != nil)
        run([holder, member], milliseconds: 100)
        holder.relay.follow(topics: ["echo.a"], after: 0)
        member.relay.follow(topics: ["echo.a"], after: 0)
        #expect(holder.relay.isHolder && !member.relay.isHolder && !member.relay.isDirect)
        #expect(holder.serverWakes == opened && member.serverWakes == 0, "no new server connection")
        try publishOne(store, ring)
        holder.settle()
        member.settle()
        #expect(member.events(after: 0) == [1])
        #expect(member.reads == 0)

        // Once they have lingered, both let go of everything.
        holder.relay.linger = 0
        member.relay.linger = 0
        holder.relay.follow(topics: [], after: 1)
        member.relay.follow(topics: [], after: 1)
        run([holder, member], milliseconds: FeedRelay.staleNanoseconds / 1_000_000 + 500)
        #expect(holder.relay.idleDescriptor == nil && member.relay.idleDescriptor == nil)
        #expect(!holder.relay.isHolder && !FileManager.default.fileExists(atPath: holder.relay.socketPath))
    }

    /// The holder's host follows nothing, another host still follows
    /// through it: it stays the listener past its linger, and lets go once
    /// nobody does (the other, following nothing, does not take over).
    @Test func aHolderThatFollowsNothingServesTheOthersUntilTheyStop() throws {
        let (holder, member, store, ring) = try holderAndMember()
        holder.relay.linger = 0
        holder.relay.follow(topics: [], after: 0)
        run([holder, member], milliseconds: FeedRelay.staleNanoseconds / 1_000_000 + 500)
        #expect(holder.relay.isHolder, "kept past its linger for the member")
        try publishOne(store, ring)
        run([holder, member], milliseconds: 200)
        #expect(member.events(after: 0) == [1])
        #expect(member.reads == 0)

        member.relay.follow(topics: [], after: 1)
        run([holder, member], milliseconds: FeedRelay.staleNanoseconds / 1_000_000 + 500)
        #expect(holder.relay.idleDescriptor == nil, "let go once nobody follows through it")
        #expect(!member.relay.isHolder && member.serverWakes == 0, "the member, following nothing, did not take over")
    }

    /// A member whose user logs off just as its holder goes (its end of
    /// stream not read yet) cannot tell it: it lets go, and opens no
    /// server connection for itself.
    @Test func aMemberFollowingNothingAsItsHolderGoesLetsGo() throws {
        let (holder, member, _, _) = try holderAndMember()
        holder.relay.letGo()  // as its process exiting would; the member has not read the end of stream
        member.relay.follow(topics: [], after: 0)
        #expect(member.relay.idleDescriptor == nil && !member.relay.isDirect)
        #expect(member.serverWakes == 0)
    }

    /// A member told to follow something else as its holder goes (its end
    /// of stream not read yet) cannot send the follow: it elects again, as
    /// on the end of stream, rather than listen on its own for good. A
    /// killed holder's sockets close in any order, so a member may even
    /// connect to its listener as it closes, and fail its first follow.
    @Test func aMemberThatCannotTellItsGoneHolderElectsAgain() throws {
        let (holder, member, store, ring) = try holderAndMember()
        holder.relay.letGo()
        member.relay.follow(topics: ["echo.a", "echo.b"], after: 0)
        #expect(member.relay.isHolder, "took the holder's place")
        try store.write { _ = try $0.appendFeedEvent(topic: "echo.b", payload: "{}", at: 0) }
        ring.ring()
        member.settle()
        #expect(member.relay.events(after: 0, topics: ["echo.b"], limit: 10)?.map(\.sequence) == [1])
    }

    /// A holder whose host follows nothing, serving another, opens its
    /// LISTEN connection again when it is lost, as its host's loop did.
    @Test func anIdleHolderOpensALostServerConnectionAgain() throws {
        let (holder, member, store, ring) = try holderAndMember(notices: true)
        holder.relay.follow(topics: [], after: 0)
        let wake = try #require(holder.noticeWake)
        wake.gone = true
        run([holder, member], milliseconds: FeedRelay.staleNanoseconds / 1_000_000 + 500)
        #expect(holder.relay.serverRegistration == nil, "the lost connection is noticed")
        wake.gone = false
        run([holder, member], milliseconds: FeedRelay.staleNanoseconds / 1_000_000 + 500)
        #expect(holder.relay.serverRegistration != nil, "and opened again")
        wake.pending.append(.sequence(try publishOne(store, ring)))
        run([holder, member], milliseconds: 200)
        #expect(member.events(after: 0) == [1])
    }

    @Test func aStateFolderTooDeepForASocketAddressStillHasOneListener() throws {
        let (_, store, feedFile, ring) = try sharedStore()
        let folder = scratch.path + "/" + String(repeating: "deep-", count: 24) + "state"
        #expect(folder.utf8.count > 107)
        let holder = Host(folder: folder, store: store, feedFile: feedFile)
        let member = Host(folder: folder, store: store, feedFile: feedFile)
        holder.relay.follow(topics: ["echo.a"], after: 0)
        member.relay.follow(topics: ["echo.a"], after: 0)
        #expect(holder.relay.isHolder && !member.relay.isHolder && !member.relay.isDirect)
        holder.settle()
        try publishOne(store, ring)
        holder.settle()
        member.settle()
        #expect(member.events(after: 0) == [1])
        #expect(member.reads == 0)
    }

    @Test func aMemberDropsWhatAnsweredAnEarlierFollow() throws {
        let (folder, store, feedFile, ring) = try sharedStore()
        let holder = Host(folder: folder, store: store, feedFile: feedFile)
        let member = Host(folder: folder, store: store, feedFile: feedFile)
        holder.relay.follow(topics: ["echo.a"], after: 0)
        member.relay.follow(topics: ["echo.a"], after: 0)
        holder.settle()
        for topic in ["echo.a", "echo.b", "echo.a"] { try store.write { try $0.appendFeedEvent(topic: topic, payload: "{}", at: 0) } }
        ring.ring()
        holder.settle()
        // The member now follows echo.b as well, from 0, before reading
        // what answered its first follow: that is dropped, and the answer to
        // the new one has echo.b's event too.
        member.relay.follow(topics: ["echo.a", "echo.b"], after: 0)
        holder.settle()
        member.settle()
        #expect(member.relay.events(after: 0, topics: ["echo.a", "echo.b"], limit: 256)?.map(\.sequence) == [1, 2, 3])
        #expect(member.reads == 0)
    }

    @Test func aPeerThatStopsReadingIsNeitherWaitedOnNorKept() throws {
        let (folder, store, feedFile, ring) = try sharedStore()
        let holder = Host(folder: folder, store: store, feedFile: feedFile)
        let member = Host(folder: folder, store: store, feedFile: feedFile)
        holder.relay.follow(topics: ["echo.a"], after: 0)
        member.relay.follow(topics: ["echo.a"], after: 0)
        // A peer that follows echo.a and never reads.
        let slow = try RelaySocket.connect(to: RelayCall.address(holder.relay.socketPath)!, readLimit: 1 << 20, pendingLimit: 1 << 20)
        #expect(slow.send(FeedRelayFrame.follow(generation: 1, cursor: 0, topics: ["echo.a"]).encoded()))
        holder.settle()
        #expect(holder.relay.peers.count == 2)

        let payload = "\"" + String(repeating: "x", count: 60_000) + "\""
        for _ in 0..<60 { try store.write { try $0.appendFeedEvent(topic: "echo.a", payload: payload, at: 0) } }
        ring.ring()
        var heard: [Int64] = []
        let started = ContinuousClock.now
        while heard.count < 60, ContinuousClock.now - started < .seconds(20) {
            holder.settle(milliseconds: 20)
            member.settle(milliseconds: 20)
            heard += member.relay.events(after: heard.last ?? 0, topics: ["echo.a"], limit: 256)?.map(\.sequence) ?? []
        }
        #expect(heard == Array(1...60), "the member gets everything while the slow peer holds its share unread")
        #expect(member.reads == 0)
        #expect(holder.relay.peers.values.filter { $0.stalledSince != nil }.count == 1, "the slow peer is not fed past its bound")

        // Past the stall bound it is dropped at the next read; the holder carries on.
        holder.relay.stallNanoseconds = 0
        try publishOne(store, ring)
        holder.settle()
        member.settle()
        #expect(holder.relay.peers.count == 1)
        #expect(member.relay.events(after: 60, topics: ["echo.a"], limit: 256)?.map(\.sequence) == [61])
        slow.close()
    }
}
