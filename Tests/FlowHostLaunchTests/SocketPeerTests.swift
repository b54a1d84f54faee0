@testable import FlowHostLaunch
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--peer-group`: who a socket-activated host serves, from the kernel's
/// word about its peer.
@Suite struct SocketPeerTests {
    @Test func theKernelNamesThePeerOfAUnixSocket() throws {
        var ends: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let peer = try SocketPeer.of(ends[0])
        #expect(peer.uid == geteuid())
        #expect(peer.gid == getegid())
    }

    @Test func aPipeHasNoPeerToKnow() {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(throws: (any Error).self) { try SocketPeer.of(ends[0]) }
    }

    @Test func rootTheHostsUserAndTheGroupsMembersAreAdmitted() {
        let group: gid_t = 990
        let host: uid_t = 991
        #expect(SocketPeer(uid: 0, gid: 0).isAdmitted(group: group, hostUID: host))
        #expect(SocketPeer(uid: host, gid: 100).isAdmitted(group: group, hostUID: host))
        #expect(SocketPeer(uid: 1000, gid: group).isAdmitted(group: group, hostUID: host))
        #expect(SocketPeer(uid: 1000, gid: 100, groups: [27, group]).isAdmitted(group: group, hostUID: host))
    }

    @Test func anyoneElseIsRefused() {
        #expect(!SocketPeer(uid: 65534, gid: 65534).isAdmitted(group: 990, hostUID: 991))
        #expect(!SocketPeer(uid: 1000, gid: 100, groups: [27, 989]).isAdmitted(group: 990, hostUID: 991))
    }

    @Test func anInstalledHostsFlowsAreInItsLibFolder() {
        #expect(HostLaunchOptions.builtInFolder("/usr/bin") == "/usr/lib/flowhost/plugins")
        #expect(HostLaunchOptions.builtInFolder("/opt/flowhost/bin") == "/opt/flowhost/lib/flowhost/plugins")
        #expect(HostLaunchOptions.builtInFolder("/work/.build/x86_64-unknown-linux-gnu/release") == "/work/.build/x86_64-unknown-linux-gnu/release")
        #expect(HostLaunchOptions.builtInFolder("/srv/flowhost/binaries") == "/srv/flowhost/binaries")
    }

    @Test func aGroupLargerThanTheFirstBufferIsReadAgainNotMissed() throws {
        // One byte holds no entry: getgrnam_r says ERANGE, which is not "no such group".
        #expect(try GroupDatabase.groupID("root", initialBuffer: 1) == 0)
        #expect(try GroupDatabase.groupID("root") == 0)
    }

    @Test func aGroupTheDatabaseDoesNotHaveIsNil() throws {
        #expect(try GroupDatabase.groupID("flowhost-no-such-group") == nil)
    }
}
