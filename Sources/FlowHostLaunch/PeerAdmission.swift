import FlowHostPOSIX
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `--peer-group GROUP`: a host whose connection is a Unix-domain socket
/// serves only root, its own user and the members of GROUP (SECURITY.md,
/// "Socket activation"). The socket's own mode says the same; this holds
/// when it does not (an abstract socket, a mode widened by mistake, a
/// socket handed over by something else). Checked only when asked for, so a
/// host spawned on pipes makes no extra system call.
enum PeerAdmission {
    /// The status a refused peer's host exits with (sysexits' EX_NOPERM).
    static let refusedStatus: Int32 = 77

    static func check(group name: String, connection fd: Int32, logger: Logger) throws(LaunchError) {
        let found: gid_t?
        do { found = try GroupDatabase.groupID(name) } catch {
            logger.error("--peer-group \(name): the group database cannot be read (\(error)); refused")
            throw .exit(refusedStatus)
        }
        guard let group = found else { throw .usage("--peer-group \(name): no such group") }
        let peer: SocketPeer
        do { peer = try SocketPeer.of(fd) } catch {
            logger.error("--peer-group \(name): the connection is not a Unix-domain socket whose peer can be known (\(error)); refused")
            throw .exit(refusedStatus)
        }
        guard peer.isAdmitted(group: group, hostUID: geteuid()) else {
            logger.error("the peer (uid \(peer.uid), gid \(peer.gid)) is not root, this host's user or a member of \(name); refused")
            throw .exit(refusedStatus)
        }
    }
}
