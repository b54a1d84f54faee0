import CBenchP256
import Foundation

/// A device's keystore with one P-256 key, answering the host's platform
/// requests as a phone with a Secure Enclave would (spec §7).
final class PlatformKeystore {
    private let key: UnsafeMutableRawPointer
    private let publicKey: String
    static let keyID = "bench-p256"

    init() throws {
        var point = [UInt8](repeating: 0, count: 65)
        guard let key = bench_p256_new(&point) else { throw BenchError("no P-256 key from libcrypto") }
        self.key = key
        publicKey = Data(point).base64EncodedString()
    }

    deinit { bench_p256_free(key) }

    /// The answer to a host request line, or nil when the line is none of the keystore's.
    func answer(_ line: String) throws -> String? {
        guard line.contains(#""method":"platform/"#) else { return nil }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let id = object["id"] as? String, let method = object["method"] as? String, let params = object["params"] as? [String: Any]
        else { throw BenchError("unreadable host request: \(line.prefix(200))") }
        let result: String
        switch method {
        case "platform/createDeviceKey":
            guard (params["algorithms"] as? [String])?.contains("ES256") == true else { throw BenchError("the host offers no ES256") }
            result = #"{"keyID":"\#(Self.keyID)","publicKey":"\#(publicKey)","algorithm":"ES256"}"#
        case "platform/signDeviceChallenge":
            guard let text = params["challenge"] as? String, let challenge = Data(base64Encoded: text) else { throw BenchError("no challenge") }
            var signature = [UInt8](repeating: 0, count: 64)
            let signed = challenge.withUnsafeBytes { bench_p256_sign(key, $0.bindMemory(to: UInt8.self).baseAddress, $0.count, &signature) }
            guard signed == 0 else { throw BenchError("libcrypto did not sign") }
            result = #"{"signature":"\#(Data(signature).base64EncodedString())"}"#
        default:
            throw BenchError("unexpected host request \(method)")
        }
        return #"{"jsonrpc":"2.0","id":"\#(id)","result":\#(result)}"#
    }
}
