import FlowJSON

/// `clientDataJSON` (WebAuthn §5.8.1), read and checked: its `type`, its
/// `challenge` (base64url, equal to the one the host sent), its `origin`
/// (one the operator configured, compared exactly) and `crossOrigin`
/// (refused when true: the host's page is never framed by another).
enum WebAuthnClientData {
    static let maxBytes = 4096

    static func check(_ bytes: [UInt8], type: String, challenge: [UInt8], origins: [String]) throws(WebAuthnError) {
        guard bytes.count <= maxBytes else { throw WebAuthnError("clientDataJSON longer than \(maxBytes) bytes") }
        let data: JSON
        do { data = try bytes.withUnsafeBytes { buffer throws(JSONParseError) in try JSON.parse(buffer) } } catch {
            throw WebAuthnError("clientDataJSON is not JSON: \(error)")
        }
        guard data.kind == .object else { throw WebAuthnError("clientDataJSON is not an object") }
        guard data["type"]?.stringValue == type else { throw WebAuthnError("clientDataJSON's type is not \(type)", reason: "wrong-type") }
        guard data["challenge"]?.stringValue == Base64.encodeURLSafe(challenge) else {
            throw WebAuthnError("clientDataJSON's challenge is not the one sent", reason: "wrong-challenge")
        }
        guard let origin = data["origin"]?.stringValue, origins.contains(origin) else {
            throw WebAuthnError("clientDataJSON's origin is not one configured (webauthn.origins)", reason: "wrong-origin")
        }
        if let crossOrigin = data["crossOrigin"], crossOrigin.boolValue != false {
            throw WebAuthnError("clientDataJSON says crossOrigin", reason: "cross-origin")
        }
    }
}
