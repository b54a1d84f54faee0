import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// A group's id from the system's group database (files, LDAP, systemd's
/// userdb: whatever nsswitch.conf names), for `--peer-group`.
enum GroupDatabase {
    /// Room for the largest entry read; a group with that many members is a
    /// broken database, not a reason to grow further.
    static let largestBuffer = 16 << 20

    /// The id of group `name`; nil when the database says there is no such
    /// group. Fails when the database cannot be read; an entry larger than
    /// the buffer (ERANGE: a group with many members) is read again with
    /// twice the room.
    static func groupID(_ name: String, initialBuffer: Int = 16384) throws(SystemError) -> gid_t? {
        var size = max(1, initialBuffer)
        while true {
            var entry = group()
            var result: UnsafeMutablePointer<group>?
            var buffer = [CChar](repeating: 0, count: size)
            let status = getgrnam_r(name, &entry, &buffer, buffer.count, &result)
            if status == ERANGE, size < largestBuffer {
                size = min(size * 2, largestBuffer)
                continue
            }
            // 0 with no result, or one of the codes glibc documents for "not
            // found" (ENOENT, ESRCH, EBADF, EPERM from some NSS modules).
            if result == nil, [0, ENOENT, ESRCH, EBADF, EPERM].contains(status) { return nil }
            try SystemCall.checkStatus("getgrnam_r \(name)", status)
            guard let found = result else { return nil }
            return found.pointee.gr_gid
        }
    }
}
