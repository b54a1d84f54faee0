import FlowHostPOSIX

#if canImport(Glibc)
import CEpoll
import Glibc
#endif

/// Who is at the other end of the host's connection, when the connection is
/// a Unix-domain socket (a host started by a socket unit with `Accept=yes`,
/// or `systemd-socket-activate --accept`): the kernel's word, read with
/// SO_PEERCRED and SO_PEERGROUPS, never the client's.
public struct SocketPeer: Equatable, Sendable {
    public var uid: uid_t
    public var gid: gid_t
    /// Supplementary groups (empty where the kernel cannot tell them).
    public var groups: [gid_t]

    public init(uid: uid_t, gid: gid_t, groups: [gid_t] = []) {
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// The peer of `fd`; fails when `fd` is not a Unix-domain socket.
    public static func of(_ fd: Int32) throws(SystemError) -> SocketPeer {
        #if os(Linux)
        var uid = uid_t(0)
        var gid = gid_t(0)
        try SystemCall.check("getsockopt SO_PEERCRED", fh_peer_ids(fd, &uid, &gid))
        // NGROUPS_MAX is 65536; a peer in more groups than this buffer holds
        // is read again with room for all.
        var groups = [gid_t](repeating: 0, count: 64)
        var count = fh_peer_groups(fd, &groups, Int32(groups.count))
        if count < 0, errno == ERANGE {
            groups = [gid_t](repeating: 0, count: 65536)
            count = fh_peer_groups(fd, &groups, Int32(groups.count))
        }
        try SystemCall.check("getsockopt SO_PEERGROUPS", count)
        return SocketPeer(uid: uid, gid: gid, groups: Array(groups.prefix(Int(count))))
        #else
        throw SystemError(operation: "getsockopt SO_PEERCRED", errno: ENOTSUP)
        #endif
    }

    /// Whether this peer may speak for a user to the host: root, the host's
    /// own user, or a member of `group` (its primary or a supplementary group).
    public func isAdmitted(group: gid_t, hostUID: uid_t) -> Bool {
        uid == 0 || uid == hostUID || gid == group || groups.contains(group)
    }
}
