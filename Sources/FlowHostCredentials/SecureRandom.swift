#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Secrets from the system CSPRNG (`SystemRandomNumberGenerator` is
/// getrandom(2) on Linux), and the few comparisons that must not leak timing.
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

    public static func hex(bytes count: Int) -> String {
        bytes(count).map { byte in
            let digits: [Character] = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }

    /// Compares without an early exit, so timing tells nothing about where
    /// two secrets differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }

    /// Overwrites a buffer that held a secret.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            // memset through a volatile-like path the optimiser keeps.
            _ = memset(base, 0, buffer.count)
        }
    }
}
