#if canImport(CryptoKit)
import CryptoKit
import Foundation
import Security

// Apple platforms' device keys, through CryptoKit. Not compiled on Linux
// (no CryptoKit there): each type is a thin adapter, CryptoKit's key types
// answering the protocol's three questions one to one.

/// A P-256 key in the Secure Enclave: its secret half never leaves the
/// enclave, and signing may ask for the user's biometric (per the access
/// control it was made with). `dataRepresentation` is a blob only this
/// device's enclave can use: an app keeps it in the keychain under the
/// key's id and gives it back to `init(dataRepresentation:)` at its next
/// start (`PlatformKeys.add`).
///
/// Unchecked Sendable: an immutable handle to a key in the enclave;
/// CryptoKit's keys are immutable values, used from any thread.
@available(iOS 13, macOS 10.15, watchOS 6, tvOS 13, *)
public struct SecureEnclaveDeviceKey: DeviceSigningKey, @unchecked Sendable {
    public let key: SecureEnclave.P256.Signing.PrivateKey

    /// A new key, usable while the device is unlocked (CryptoKit's default access control).
    public init() throws { key = try SecureEnclave.P256.Signing.PrivateKey() }
    /// A new key under `accessControl` (e.g. `.privateKeyUsage` with `.biometryCurrentSet`).
    public init(accessControl: SecAccessControl) throws { key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: accessControl) }
    /// The key a `dataRepresentation` kept from before stands for.
    public init(dataRepresentation: Data) throws { key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: dataRepresentation) }

    public var dataRepresentation: Data { key.dataRepresentation }
    public var algorithm: DeviceKeyAlgorithm { .es256 }
    /// The 65-byte uncompressed point (ANSI X9.63).
    public var publicKey: Data { key.publicKey.x963Representation }
    /// ECDSA with SHA-256 over `message`, as r‖s.
    public func signature(for message: Data) throws -> Data { try key.signature(for: message).rawRepresentation }
}

/// A P-256 key in software, in memory: for tools and tests.
///
/// Unchecked Sendable: an immutable CryptoKit key, used from any thread.
@available(iOS 13, macOS 10.15, watchOS 6, tvOS 13, *)
public struct SoftwareP256Key: DeviceSigningKey, @unchecked Sendable {
    public let key: P256.Signing.PrivateKey

    /// Throws on no platform; declared so, as on Linux, where libcrypto may be missing.
    public init() throws { key = P256.Signing.PrivateKey() }

    public var algorithm: DeviceKeyAlgorithm { .es256 }
    public var publicKey: Data { key.publicKey.x963Representation }
    public func signature(for message: Data) throws -> Data { try key.signature(for: message).rawRepresentation }
}
#endif
