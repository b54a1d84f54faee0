#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Secrets from the system CSPRNG (`SystemRandomNumberGenerator` is
/// getrandom(2) on Linux), and wiping buffers that held one.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// `length` characters drawn uniformly from `alphabet`.
    public static func string(length: Int, alphabet: [Character]) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    public static func hex(bytes count: Int) -> String { RandomHex.make(bytes: count) }

    /// Overwrites a buffer that held a secret.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            // memset through a volatile-like path the optimiser keeps.
            _ = memset(base, 0, buffer.count)
        }
    }
}
