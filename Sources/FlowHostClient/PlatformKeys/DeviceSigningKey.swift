import Foundation

/// A device key's algorithm, as the wire names it (spec §7).
public enum DeviceKeyAlgorithm: String, Sendable, CaseIterable {
    /// ECDSA on P-256 with SHA-256: the Secure Enclave's, a TPM's, Android's keystore's.
    case es256 = "ES256"
    case ed25519 = "Ed25519"
}

/// A key the platform holds for this device: what `PlatformKeys` needs of
/// it, so that a Secure Enclave key (`SecureEnclaveDeviceKey`), a software
/// key (`SoftwareP256Key`) or an app's own keystore fits the same handler.
public protocol DeviceSigningKey: Sendable {
    var algorithm: DeviceKeyAlgorithm { get }
    /// ES256: the 65-byte uncompressed SEC1 point (CryptoKit's
    /// `x963Representation`); Ed25519: the 32 raw bytes.
    var publicKey: Data { get }
    /// The signature of `message` as the platform gives it. ES256: ECDSA
    /// with SHA-256 over `message`, as the 64 bytes r‖s (CryptoKit's
    /// `rawRepresentation`), whatever half s is in: `PlatformKeys` lowers
    /// it. Ed25519: the 64-byte signature. May prompt the user (a
    /// biometric-bound key) and may throw `FlowHostClient.HandlerError`.
    func signature(for message: Data) async throws -> Data
}
