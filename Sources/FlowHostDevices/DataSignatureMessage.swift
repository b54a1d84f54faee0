/// The bytes a data signature covers (Protocol/spec.md §19 defines them for
/// anyone who verifies without FlowHost): ten lines joined by LF, no final
/// LF; text that a client chose is base64 (RFC 4648, with padding) of its
/// UTF-8, so no value can end a line or pose as another field. The first
/// line separates these signatures from a device's proofs of possession,
/// which the same key makes over `flowhost-device-proof-v1` messages.
public struct DataSignatureMessage: Sendable, Equatable {
    public static let header = "flowhost-data-signature-v1"

    public var dataSignatureID: String
    public var userID: String
    public var deviceID: String
    public var keyID: String
    public var authLevel: Int
    public var authenticatorType: Int
    public var signedAt: Int64
    public var reason: String
    public var payload: String

    public init(
        dataSignatureID: String, userID: String, deviceID: String, keyID: String, authLevel: Int, authenticatorType: Int, signedAt: Int64,
        reason: String, payload: String
    ) {
        self.dataSignatureID = dataSignatureID
        self.userID = userID
        self.deviceID = deviceID
        self.keyID = keyID
        self.authLevel = authLevel
        self.authenticatorType = authenticatorType
        self.signedAt = signedAt
        self.reason = reason
        self.payload = payload
    }

    public var bytes: [UInt8] {
        // Base64 is 4/3 of the text; the names and numbers are under 200 bytes.
        let texts = userID.utf8.count + deviceID.utf8.count + keyID.utf8.count + reason.utf8.count + payload.utf8.count
        var lines = SignedLines(header: Self.header, capacity: 200 + dataSignatureID.utf8.count + texts / 3 * 4 + 20)
        lines.plain("dataSignatureID", dataSignatureID)
        lines.text("userID", userID)
        lines.text("deviceID", deviceID)
        lines.text("keyID", keyID)
        lines.number("authLevel", Int64(authLevel))
        lines.number("authenticatorType", Int64(authenticatorType))
        lines.number("signedAt", signedAt)
        lines.text("reason", reason)
        lines.text("payload", payload)
        return lines.bytes
    }

    /// Whether `signature` is `publicKey`'s (an `algorithm` key) over exactly these fields.
    public func verify(signature: [UInt8], publicKey: [UInt8], algorithm: DeviceKeyAlgorithm = .ed25519) -> Bool {
        Self.verify(signature: signature, of: bytes, publicKey: publicKey, algorithm: algorithm)
    }

    /// The same, over a message's `bytes` already made.
    static func verify(signature: [UInt8], of bytes: [UInt8], publicKey: [UInt8], algorithm: DeviceKeyAlgorithm) -> Bool {
        DeviceKeyAlgorithm(publicKey: publicKey) == algorithm && algorithm.verify(signature, of: bytes, publicKey: publicKey)
    }
}
