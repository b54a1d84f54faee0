import CSodium
import FlowJSON

/// What a WebAuthn device's data signature covers besides the message
/// (spec §19): an authenticator does not sign the bare message, it signs
/// `authenticatorData ‖ SHA-256(clientDataJSON)`, whose `challenge` is the
/// base64url of SHA-256 of the message. A receipt carries both (base64url,
/// as the client sent them), so a third party checks it offline.
public struct WebAuthnSignedData: Sendable, Equatable {
    /// base64url, no padding.
    public var authenticatorData: String
    /// base64url, no padding.
    public var clientDataJSON: String

    public init(authenticatorData: String, clientDataJSON: String) {
        self.authenticatorData = authenticatorData
        self.clientDataJSON = clientDataJSON
    }

    /// The challenge a signing of `message` sends: SHA-256 of the message's bytes.
    public static func challenge(for message: [UInt8]) -> [UInt8] { SHA256.digest(message) }

    /// Whether `signature` (`algorithm`, `publicKey`) holds over these bytes
    /// and they are an assertion of `message`: clientDataJSON's type is
    /// webauthn.get and its challenge the message's digest, the user was
    /// present. Origin and RP id were checked at signing, under the
    /// configuration of that day; the spec's offline check repeats them.
    public func verify(signature: [UInt8], message: [UInt8], publicKey: [UInt8], algorithm: DeviceKeyAlgorithm) -> Bool {
        guard let data = Base64.decodeURLSafe(authenticatorData), let client = Base64.decodeURLSafe(clientDataJSON),
            let parsed = try? AuthenticatorData(data), parsed.flags.contains(.userPresent), client.count <= WebAuthnClientData.maxBytes,
            let json = try? client.withUnsafeBytes({ buffer throws(JSONParseError) in try JSON.parse(buffer) }),
            json["type"]?.stringValue == "webauthn.get",
            json["challenge"]?.stringValue == Base64.encodeURLSafe(Self.challenge(for: message))
        else { return false }
        return algorithm.verify(signature, of: data + SHA256.digest(client), publicKey: publicKey)
    }
}
