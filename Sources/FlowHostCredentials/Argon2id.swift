import CArgon2
import FlowHostPOSIX
import FlowHostVocabulary

/// A libargon2 call that failed, with the library's own message.
public struct Argon2Error: Error, CustomStringConvertible, Equatable {
    public let code: Int32
    public var description: String { "argon2: " + String(cString: argon2_error_message(code)) }

    /// Every libargon2 call goes through here: a non-OK code becomes a typed error.
    static func check(_ code: Int32) throws(Argon2Error) {
        guard code == ARGON2_OK.rawValue else { throw Argon2Error(code: code) }
    }
}

/// Argon2id password hashing (RFC 9106) in the PHC string format, so each
/// hash carries its own salt and parameters and old hashes stay verifiable
/// after the settings change.
public struct Argon2idHasher: Sendable, Equatable {
    /// Memory in KiB. OWASP's minimum: 19 MiB.
    public var memoryKiB: UInt32
    public var iterations: UInt32
    public var parallelism: UInt32

    public static let owaspDefault = Argon2idHasher(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)

    public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    static let saltBytes = 16
    static let hashBytes = 32

    public func hash(_ password: String) throws(Argon2Error) -> String {
        let salt = SecureRandom.bytes(Self.saltBytes)
        let length = fh_argon2id_encoded_length(iterations, memoryKiB, parallelism, UInt32(Self.saltBytes), UInt32(Self.hashBytes))
        var encoded = [CChar](repeating: 0, count: length)
        var bytes = Array(password.utf8)
        defer { SecureRandom.wipe(&bytes) }
        let code = bytes.withUnsafeBytes { passwordBuffer in
            salt.withUnsafeBytes { saltBuffer in
                argon2id_hash_encoded(
                    iterations, memoryKiB, parallelism, passwordBuffer.baseAddress, passwordBuffer.count,
                    saltBuffer.baseAddress, saltBuffer.count, Self.hashBytes, &encoded, length)
            }
        }
        try Argon2Error.check(code)
        let end = encoded.firstIndex(of: 0) ?? encoded.endIndex
        return String(utf8: encoded[..<end].map { UInt8(bitPattern: $0) })
    }

    /// True when `password` matches `encoded`. libargon2 compares in constant time.
    public func verify(_ password: String, against encoded: String) -> Bool {
        var bytes = Array(password.utf8)
        defer { SecureRandom.wipe(&bytes) }
        let code = bytes.withUnsafeBytes { argon2id_verify(encoded, $0.baseAddress, $0.count) }
        return code == ARGON2_OK.rawValue
    }
}
