import Foundation

/// WebAuthn's JSON encoding, as a WebAuthn device (`keyCustody:
/// "webauthn"`, spec §7) answers the host's `platform/createCredential` and
/// `platform/getAssertion`: what a browser's `PublicKeyCredential.toJSON()`
/// gives, built from the raw fields a platform's API hands back (Apple's
/// AuthenticationServices: docs/clients.md, "WebAuthn answers"). Binary
/// fields are base64url without padding.
public enum WebAuthnJSON {
    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of a base64url text (with or without padding); nil when it is not one.
    public static func data(base64URL text: String) -> Data? {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if !base64.hasSuffix("=") { base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4) }
        return Data(base64Encoded: base64)
    }

    /// `platform/createCredential`'s answer (RegistrationResponseJSON).
    public static func registration(credentialID: Data, clientDataJSON: Data, attestationObject: Data, transports: [String] = ["internal"]) -> JSONValue {
        [
            "id": .string(base64URL(credentialID)), "rawId": .string(base64URL(credentialID)), "type": "public-key",
            "response": [
                "clientDataJSON": .string(base64URL(clientDataJSON)), "attestationObject": .string(base64URL(attestationObject)),
                "transports": .array(transports.map { .string($0) }),
            ],
        ]
    }

    /// `platform/getAssertion`'s answer (AuthenticationResponseJSON).
    public static func assertion(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?) -> JSONValue {
        [
            "id": .string(base64URL(credentialID)), "rawId": .string(base64URL(credentialID)), "type": "public-key",
            "response": [
                "clientDataJSON": .string(base64URL(clientDataJSON)), "authenticatorData": .string(base64URL(authenticatorData)),
                "signature": .string(base64URL(signature)), "userHandle": userHandle.map { .string(base64URL($0)) } ?? .null,
            ],
        ]
    }
}
