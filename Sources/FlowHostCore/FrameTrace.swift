import FlowHostPOSIX
import FlowJSON
import JSONRPC

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--trace FILE`: every frame in (`->`) and out (`<-`), one per line, after
/// a UTC timestamp with milliseconds, as LSP's trace shows them. Secrets are
/// masked before anything is written: the values of members named like a
/// password, a code or a key, the positional params of the methods that
/// carry them, and what the loaded flows declare secret (`DeclaredSecrets`),
/// whatever its name. A line that is not JSON is written as its length only (it may
/// be anything, a password pasted into the wrong window included).
///
/// Used on the loop thread only (the engine's input, and its frame sink).
public final class FrameTrace {
    // What is masked (`secretMembers`, `secretPositions`, `mask`) is generated
    // from Protocol/masked-secrets.json (Generated/MaskedSecrets.swift), the
    // list the inspector's page reads too; `jwtJsonTokenInfo` is in it: the
    // session token is a bearer credential to whoever trusts the issuer.

    private let fd: Int32
    /// Reads what the loaded flows declare secret; set by the engine.
    var declaredSecretsSource: (() -> DeclaredSecrets)?
    /// Read on the first frame recorded after the flows changed.
    private var declaredSecrets: DeclaredSecrets?

    /// The flows changed: their declared secrets are read again.
    func forgetDeclaredSecrets() { declaredSecrets = nil }

    /// Opens (creates, mode 0600) or appends to `path`. An existing file is
    /// taken only if it is as private as a new one: a regular file (not a
    /// link), owned by this user, readable by no one else. The check is on
    /// the opened descriptor, so the file cannot be swapped in between.
    public init(path: String) throws(SystemError) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw SystemError(operation: "open \(path)", errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemError(operation: "stat \(path)", errno: errno)
            close(fd)
            throw error
        }
        if info.st_mode & S_IFMT != S_IFREG || info.st_uid != getuid() || info.st_mode & 0o077 != 0 {
            close(fd)
            throw SystemError(
                operation: "trace file \(path) has mode \(String(info.st_mode & 0o7777, radix: 8)) (it must be a regular file of yours with mode 0600: chmod 600 it, or name a new file)",
                errno: EPERM)
        }
    }

    deinit { close(fd) }

    public func record(incoming bytes: UnsafeRawBufferPointer) { record("->", bytes) }

    public func record(outgoing bytes: UnsafeRawBufferPointer) {
        // The writer hands over whole frames, one or more per write.
        var start = 0
        for index in 0..<bytes.count where bytes[index] == 0x0A {
            record("<-", UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
            start = index + 1
        }
        if start < bytes.count { record("<-", UnsafeRawBufferPointer(rebasing: bytes[start...])) }
    }

    private func record(_ direction: String, _ bytes: UnsafeRawBufferPointer) {
        let shown: String
        if let value = try? JSON.parse(bytes) {
            if declaredSecrets == nil { declaredSecrets = declaredSecretsSource?() }
            Self.masked(value, declared: declaredSecrets)
            shown = value.serialized()
        } else {
            shown = "(not JSON, \(bytes.count) bytes)"
        }
        let line = Array("\(Self.timestamp()) \(direction) \(shown)\n".utf8)
        _ = try? SystemFile.writeAll(fd, line)
    }

    /// Masks the secrets in a message (or a batch) in place: those named
    /// like one, and those the flows declare.
    static func masked(_ value: JSON, declared: DeclaredSecrets? = nil) {
        if value.kind == .array {
            for element in value.elements { masked(element, declared: declared) }
            return
        }
        guard value.kind == .object else { return }
        if let params = value["params"] {
            let method = value["method"]?.stringValue
            if params.kind == .array, let method, let positions = secretPositions[method] {
                for position in positions where position < params.count { params.replace(at: position, with: .string(mask)) }
            }
            if let method, let declared { declared.mask(params, of: method, with: mask) }
            maskMembers(params)
        }
        if let result = value["result"] { maskMembers(result) }
    }

    private static func maskMembers(_ value: JSON) {
        switch value.kind {
        case .object:
            for key in value.keys {
                if secretMembers.contains(key), value[key]?.kind == .string { value[key] = .string(mask) } else if let member = value[key] {
                    maskMembers(member)
                }
            }
        case .array:
            for element in value.elements { maskMembers(element) }
        default:
            return
        }
    }

    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let milliseconds = Int(now.tv_nsec / 1_000_000)
        let padded = String(repeating: "0", count: milliseconds < 10 ? 2 : milliseconds < 100 ? 1 : 0) + String(milliseconds)
        let seconds = ISOTime.string(Int64(now.tv_sec))
        return String(seconds.dropLast()) + "." + padded + "Z"
    }
}

/// The engine's frame sink, traced: what reaches `inner` is recorded too.
public final class TracingSink: FrameSink {
    let inner: FrameSink
    let trace: FrameTrace

    public init(inner: FrameSink, trace: FrameTrace) {
        self.inner = inner
        self.trace = trace
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try inner.write(bytes)
        trace.record(outgoing: bytes)
    }
}
