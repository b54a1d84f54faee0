import Testing
#if canImport(Glibc)
import Glibc
#endif

@testable import flowhost_inspector

/// The front door's parts that need no socket: reading a head, the gate on
/// it, the capacity, and which connection makes room.
@Suite struct FrontDoorPartsTests {
    @Test func aHeadIsItsRequestLineAndHeadersUpToTheBlankLine() throws {
        let text = "GET /host?token=ab%63&x=1 HTTP/1.1\r\nHost: 127.0.0.1:8\r\nUpgrade: WebSocket\r\nhost: other\r\n\r\nrest"
        let bytes = Array(text.utf8)
        let end = try #require(RequestHead.headEnd(bytes, from: 0))
        #expect(Array(bytes[end...]) == Array("rest".utf8))
        let head = try #require(RequestHead.parse(Array(bytes[..<end]), bytes: bytes))
        #expect(head.method == "GET" && head.path == "/host" && head.token == "abc")
        #expect(head.headers["host"] == "127.0.0.1:8", "the first of a repeated header")
        #expect(head.isWebSocket && head.bytes == bytes)
        #expect(RequestHead.headEnd(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8), from: 0) == nil, "half-sent")
        #expect(RequestHead.parse(Array("GET /\r\n\r\n".utf8)) == nil)
        #expect(RequestHead.parse(Array("GET / HTTP/1.1\r\nno colon\r\n\r\n".utf8)) == nil)
    }

    @Test func theGateOnAHeadIsTheGateOnARequest() throws {
        let gate = Gate(token: AccessToken())
        gate.port.withLock { $0 = 8 }
        func head(_ target: String, _ headers: String) throws -> RequestHead {
            try #require(RequestHead.parse(Array("GET \(target) HTTP/1.1\r\n\(headers)\r\n".utf8)))
        }
        let token = gate.token.value
        #expect(gate.admits(try head("/?token=\(token)", "Host: 127.0.0.1:8\r\n")))
        #expect(!gate.admits(try head("/?token=\(token)", "Host: attacker.example:8\r\n")))
        #expect(!gate.admits(try head("/?token=0", "Host: 127.0.0.1:8\r\n")))
        #expect(!gate.admits(try head("/host?token=\(token)", "Host: 127.0.0.1:8\r\n")), "a WebSocket needs the origin")
        #expect(gate.admits(try head("/host?token=\(token)", "Host: 127.0.0.1:8\r\nOrigin: http://localhost:8\r\n")))
    }

    @Test func theCapacityFollowsTheDescriptorLimit() {
        #expect(ConnectionLimits.capacity(descriptors: 1024) == (1024 - 64) / 4)
        #expect(ConnectionLimits.capacity(descriptors: 128) == 16)
        #expect(ConnectionLimits.capacity(descriptors: 16) == 4)
        #expect(ConnectionLimits.capacity(descriptors: 1 << 20) == 256)
    }

    @Test func roomIsMadeByClosingTheOldestWaitingConnectionNeverAnAdmittedOne() async throws {
        let table = ConnectionTable(capacity: 2)
        let first = try #require(await table.open()), second = try #require(await table.open())
        await table.admit(first)
        let waiter = Task { _ = try? await Task.sleep(for: .seconds(60)) }
        await table.attach(waiter, to: second)
        // Its task, cancelled, closes its socket; the new connection takes its place.
        Task {
            _ = await waiter.value
            await table.close(second)
        }
        let third = try #require(await table.open())
        #expect(waiter.isCancelled)
        // Now one admitted and one waiting (third): admit it too, and the table is full of admitted ones.
        await table.admit(third)
        #expect(await table.open() == nil)
    }

    /// A connection whose admitted head already waits unread is not closed to
    /// make room, though it is the oldest: the one after it is.
    @Test func aHeadWaitingUnreadKeepsItsConnection() async throws {
        let table = ConnectionTable(capacity: 2) { $0 == 10 }
        let page = try #require(await table.open(descriptor: 10)), peer = try #require(await table.open(descriptor: 11))
        let pageTask = Task { _ = try? await Task.sleep(for: .seconds(60)) }
        let peerTask = Task { _ = try? await Task.sleep(for: .seconds(60)) }
        await table.attach(pageTask, to: page)
        await table.attach(peerTask, to: peer)
        Task {
            _ = await peerTask.value
            await table.close(peer)
        }
        _ = try #require(await table.open(descriptor: 12))
        #expect(peerTask.isCancelled && !pageTask.isCancelled)
        pageTask.cancel()
    }

    /// A connection that began a head and stalled is closed before an older
    /// one that has sent nothing yet (a page whose head is still on its way).
    @Test func aBegunHeadIsClosedBeforeOneNotYetSent() async throws {
        let table = ConnectionTable(capacity: 2)
        let page = try #require(await table.open(descriptor: 10)), peer = try #require(await table.open(descriptor: 11))
        await table.begun(peer)
        let pageTask = Task { _ = try? await Task.sleep(for: .seconds(60)) }
        let peerTask = Task { _ = try? await Task.sleep(for: .seconds(60)) }
        await table.attach(pageTask, to: page)
        await table.attach(peerTask, to: peer)
        Task {
            _ = await peerTask.value
            await table.close(peer)
        }
        _ = try #require(await table.open(descriptor: 12))
        #expect(peerTask.isCancelled && !pageTask.isCancelled)
        pageTask.cancel()
    }

    /// Peeking leaves the bytes for the connection's own read.
    @Test func theWaitingHeadIsLookedAtNotTaken() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let gate = Gate(token: AccessToken())
        gate.port.withLock { $0 = 8123 }
        let half = Array("GET /?token=\(gate.token.value) HTTP/1.1\r\nHost: 127.0.0.1:8123\r\n".utf8)
        _ = half.withUnsafeBytes { write(pair[1], $0.baseAddress, $0.count) }
        #expect(!FrontDoor.admittedHeadWaiting(on: pair[0], gate: gate), "not whole yet")
        _ = Array("\r\n".utf8).withUnsafeBytes { write(pair[1], $0.baseAddress, $0.count) }
        #expect(FrontDoor.admittedHeadWaiting(on: pair[0], gate: gate))
        var left = [UInt8](repeating: 0, count: 256)
        #expect(left.withUnsafeMutableBytes { read(pair[0], $0.baseAddress, $0.count) } == half.count + 2)
    }
}
