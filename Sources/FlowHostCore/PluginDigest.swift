import CSodium
import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A library file's SHA-256, read in blocks before anything loads it: what
/// an operator pins (`PluginPins`) and what `flowhost plugins --json` shows.
public enum PluginDigest {
    /// Lower-case hex of the file's SHA-256, or why it could not be read.
    public static func sha256(ofFile path: String) -> Result<String, PluginRefusal> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(PluginRefusal(path: path, reason: "cannot read it to check its hash: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        return sha256(ofDescriptor: fd, path: path)
    }

    /// The SHA-256 of the whole file open at `descriptor`, read from its
    /// start (its offset is left alone): the loader hashes the descriptor it
    /// loads from. `path` names it in a refusal.
    public static func sha256(ofDescriptor fd: Int32, path: String) -> Result<String, PluginRefusal> {
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        var block = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let count = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                return .failure(PluginRefusal(path: path, reason: "cannot read it to check its hash: \(String(cString: strerror(errno)))"))
            }
            if count == 0 { break }
            offset += off_t(count)
            block.withUnsafeBufferPointer { _ = crypto_hash_sha256_update(&state, $0.baseAddress, UInt64(count)) }
        }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return .success(Hex.encode(digest))
    }

    /// 64 hex digits (either case).
    public static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }
    }
}
