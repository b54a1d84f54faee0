import FlowHostPOSIX
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Secrets from the system CSPRNG, and wiping buffers that held one.
///
/// A buffer is filled with one call to the system's source, never a byte at a time: `UInt8.random(using: &SystemRandomNumberGenerator())`
/// makes a system call per byte, and a login drew some eighty of them.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { fill($0) }
        return bytes
    }

    /// Fills `buffer` from the kernel's CSPRNG: arc4random_buf, which glibc
    /// (2.36 and later) and Darwin serve from getrandom(2) in one call, and
    /// which never fails.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        arc4random_buf(base, buffer.count)
    }

    /// `length` characters drawn uniformly from `alphabet` (rejection
    /// sampling over random bytes: no character is likelier than another).
    public static func string(length: Int, alphabet: [Character]) -> String {
        precondition(!alphabet.isEmpty && alphabet.count <= 256)
        let limit = 256 - 256 % alphabet.count
        var result: [Character] = []
        result.reserveCapacity(length)
        while result.count < length {
            for byte in bytes(length - result.count + 8) where Int(byte) < limit && result.count < length {
                result.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(result)
    }

    public static func hex(bytes count: Int) -> String { RandomHex.make(bytes: count) }

    /// Overwrites a buffer that held a secret, where it lies (`SystemFile.wipe`:
    /// `explicit_bzero`; a `memset` here could be dropped by the optimiser).
    public static func wipe(_ bytes: inout [UInt8]) { SystemFile.wipe(&bytes) }
}
