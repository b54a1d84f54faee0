import FlowHostES256
import Foundation

/// Answers the host's two platform-key requests (spec §7) for a client with
/// `keyCustody: "platform"`, with keys the platform holds:
///
/// - `platform/createDeviceKey {userID, purpose, algorithms}`: the first of
///   this keystore's `algorithms` that the host offers (a host that names
///   none takes Ed25519), made by `make`, answered `{keyID, publicKey, algorithm}`;
/// - `platform/signDeviceChallenge {keyID, challenge}`: the key's signature
///   of the challenge bytes; for ES256 with s lowered (the host refuses a
///   high s) and in strict DER.
///
/// ```swift
/// let keys = PlatformKeys(algorithms: [.es256]) { _, keyID in
///     let key = try SecureEnclaveDeviceKey()        // on Apple platforms
///     try keychain.save(key.dataRepresentation, as: keyID)
///     return key
/// }
/// for (keyID, blob) in try keychain.all() { keys.add(try SecureEnclaveDeviceKey(dataRepresentation: blob), keyID: keyID) }
/// keys.attach(to: host)
/// ```
///
/// Unchecked Sendable: `keys` is touched only under `lock`; the rest is immutable.
public final class PlatformKeys: @unchecked Sendable {
    /// Makes a key of `algorithm` for the id the host will name it by (an
    /// app keeps it under that id, to `add` it again at its next start).
    public typealias MakeKey = @Sendable (_ algorithm: DeviceKeyAlgorithm, _ keyID: String) async throws -> any DeviceSigningKey

    /// What this keystore makes, in its own order of preference.
    public let algorithms: [DeviceKeyAlgorithm]
    private let make: MakeKey
    private let lock = NSLock()
    private var keys: [String: any DeviceSigningKey] = [:]

    public init(algorithms: [DeviceKeyAlgorithm] = [.es256], make: @escaping MakeKey) {
        self.algorithms = algorithms
        self.make = make
    }

    /// P-256 keys in software (CryptoKit on Apple platforms, the system's
    /// libcrypto on Linux), kept in memory: for tools and tests. An app on
    /// an Apple platform makes `SecureEnclaveDeviceKey`s instead.
    @available(iOS 13, macOS 10.15, watchOS 6, tvOS 13, *)  // CryptoKit's, where it is used
    public static func software() -> PlatformKeys {
        PlatformKeys(algorithms: [.es256]) { _, _ in try SoftwareP256Key() }
    }

    /// Answers `platform/createDeviceKey` and `platform/signDeviceChallenge` on `client`.
    public func attach(to client: FlowHostClient) {
        client.onRequest("platform/createDeviceKey") { [self] params in try await createDeviceKey(params) }
        client.onRequest("platform/signDeviceChallenge") { [self] params in try await signDeviceChallenge(params) }
    }

    /// A key kept from before (the platform's keystore holds it), under the id the host knows.
    public func add(_ key: any DeviceSigningKey, keyID: String) {
        lock.withLock { keys[keyID] = key }
    }

    public func key(_ keyID: String) -> (any DeviceSigningKey)? { lock.withLock { keys[keyID] } }

    /// The algorithm to make: this keystore's first that the host offers.
    public func choose(offered: [String]?) throws -> DeviceKeyAlgorithm {
        let offered = offered ?? [DeviceKeyAlgorithm.ed25519.rawValue]
        guard let chosen = algorithms.first(where: { offered.contains($0.rawValue) }) else {
            throw FlowHostClient.HandlerError(.unavailable, "this keystore makes none of \(offered.joined(separator: ", "))")
        }
        return chosen
    }

    public func createDeviceKey(_ params: JSONValue) async throws -> JSONValue {
        let algorithm = try choose(offered: params["algorithms"]?.arrayValue?.compactMap(\.stringValue))
        let keyID = UUID().uuidString
        let key = try await make(algorithm, keyID)
        let publicKey = [UInt8](key.publicKey)
        let wellFormed = algorithm == .es256 ? publicKey.count == 65 && publicKey[0] == 0x04 : publicKey.count == 32
        guard key.algorithm == algorithm, wellFormed else {
            throw FlowHostClient.HandlerError(.failed, "the platform made a key other than the \(algorithm.rawValue) key asked for")
        }
        add(key, keyID: keyID)
        return ["keyID": .string(keyID), "publicKey": .string(key.publicKey.base64EncodedString()), "algorithm": .string(algorithm.rawValue)]
    }

    public func signDeviceChallenge(_ params: JSONValue) async throws -> JSONValue {
        guard let keyID = params["keyID"]?.stringValue, let key = key(keyID) else {
            throw FlowHostClient.HandlerError(.unavailable, "no such key in this keystore")
        }
        guard let challenge = params["challenge"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else {
            throw FlowHostClient.HandlerError(.failed, "the challenge is not base64")
        }
        let signature = try await key.signature(for: challenge)
        switch key.algorithm {
        case .ed25519:
            return ["signature": .string(signature.base64EncodedString())]
        case .es256:
            guard let low = ES256Signature.lowS([UInt8](signature)) else {
                throw FlowHostClient.HandlerError(.failed, "the platform's ES256 signature is not the 64 bytes r‖s")
            }
            return ["signature": .string(Data(ES256Signature.der(low)).base64EncodedString())]
        }
    }
}
