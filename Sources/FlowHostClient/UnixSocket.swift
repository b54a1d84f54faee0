#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few socket calls the client makes for a host behind a Unix-domain
/// socket; each failure becomes `FlowHostClientError.connectFailed` with
/// the system's reason.
enum UnixSocket {
    static func connect(_ path: String) throws -> Int32 {
        #if canImport(Glibc)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw failure("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        // The path and its terminating NUL must fit; the rest is zero already.
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw FlowHostClientError.connectFailed("\(path): the path is too long for a Unix-domain socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                #if canImport(Glibc)
                Glibc.connect(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
                #else
                Darwin.connect(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
                #endif
            }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw failure("\(path)", code)
        }
        return descriptor
    }

    /// No more input for the host: it reads the end of input, as from a pipe.
    static func endWriting(_ descriptor: Int32) { _ = shutdown(descriptor, Int32(SHUT_WR)) }

    /// Both directions, for a host that does not close its end in time.
    static func cut(_ descriptor: Int32) { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }

    private static func failure(_ what: String, _ code: Int32) -> FlowHostClientError {
        .connectFailed("\(what): \(String(cString: strerror(code)))")
    }
}
