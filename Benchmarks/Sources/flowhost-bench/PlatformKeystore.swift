import CBenchP256
import CSodiumBench
import Foundation

/// A device's keystore with one key, answering the host's platform requests
/// as a phone would (spec §7): a P-256 key as a Secure Enclave makes, or an
/// Ed25519 key as a platform that makes those does.
final class PlatformKeystore {
    enum Algorithm: String { case es256 = "ES256", ed25519 = "Ed25519" }

    let algorithm: Algorithm
    private let p256: UnsafeMutableRawPointer?
    private var ed25519SecretKey = [UInt8](repeating: 0, count: 64)
    private let publicKey: String
    static let keyID = "bench-platform-key"

    init(_ algorithm: Algorithm) throws {
        self.algorithm = algorithm
        switch algorithm {
        case .es256:
            var point = [UInt8](repeating: 0, count: 65)
            guard let key = bench_p256_new(&point) else { throw BenchError("no P-256 key from libcrypto") }
            p256 = key
            publicKey = Data(point).base64EncodedString()
        case .ed25519:
            var point = [UInt8](repeating: 0, count: 32)
            _ = crypto_sign_keypair(&point, &ed25519SecretKey)
            p256 = nil
            publicKey = Data(point).base64EncodedString()
        }
    }

    deinit { if let p256 { bench_p256_free(p256) } }

    /// The answer to a host request line, or nil when the line is none of the keystore's.
    func answer(_ line: String) throws -> String? {
        guard line.contains(#""method":"platform/"#) else { return nil }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let id = object["id"] as? String, let method = object["method"] as? String, let params = object["params"] as? [String: Any]
        else { throw BenchError("unreadable host request: \(line.prefix(200))") }
        let result: String
        switch method {
        case "platform/createDeviceKey":
            guard (params["algorithms"] as? [String])?.contains(algorithm.rawValue) == true else { throw BenchError("the host offers no \(algorithm)") }
            result = #"{"keyID":"\#(Self.keyID)","publicKey":"\#(publicKey)","algorithm":"\#(algorithm.rawValue)"}"#
        case "platform/signDeviceChallenge":
            guard let text = params["challenge"] as? String, let challenge = Data(base64Encoded: text) else { throw BenchError("no challenge") }
            result = #"{"signature":"\#(try sign([UInt8](challenge)).base64EncodedString())"}"#
        default:
            throw BenchError("unexpected host request \(method)")
        }
        return #"{"jsonrpc":"2.0","id":"\#(id)","result":\#(result)}"#
    }

    private func sign(_ message: [UInt8]) throws -> Data {
        if let p256 {
            var signature = [UInt8](repeating: 0, count: 64)
            guard bench_p256_sign(p256, message, message.count, &signature) == 0 else { throw BenchError("libcrypto did not sign") }
            return Data(signature)
        }
        var signature = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), ed25519SecretKey)
        return Data(signature)
    }
}
