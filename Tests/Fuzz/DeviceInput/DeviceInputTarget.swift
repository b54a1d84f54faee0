import FlowHostDevices
import FlowHostES256
import FlowHostPOSIX
import FlowJSON
import FuzzSupport

/// What a device's platform answers, fuzzed: the bytes a client (or an
/// authenticator behind it) chooses, read by the host's own parsers before
/// any signature holds. The first byte picks the reader; 3 and 4 take two
/// parts, the first with a 2-byte big-endian length. Nothing here may
/// crash or run away, whatever comes in; scripts/fuzz-seeds.py writes a
/// valid input of each kind, made with `FuzzDevice`'s key.
func fuzzDeviceInput(_ input: UnsafeRawBufferPointer) {
    guard let selector = input.first else { return }
    let rest = Array(input.dropFirst())
    switch selector % 5 {
    case 0:
        // An attestation object, or a COSE key on its own.
        if let value = try? CBORReader.decode(rest) { _ = try? COSEKey.parse(value) }
    case 1:
        _ = try? AuthenticatorData(rest)
    case 2:
        // A P-256 signature in either form the host takes.
        _ = P256.canonicalSignature(rest)
        _ = P256.lowSSignature(der: rest)
        _ = ES256Signature.raw(fromDER: rest)
        _ = P256.verify(rest, of: FuzzDevice.challenge, publicKey: FuzzDevice.point)
    case 3:
        guard let (clientData, attestation) = twoParts(rest) else { return }
        let answer = FuzzDevice.answer(["clientDataJSON": clientData, "attestationObject": attestation])
        _ = try? FuzzDevice.party.register(answer, challenge: FuzzDevice.challenge, requireUserVerification: false)
    default:
        guard let (clientData, signed) = twoParts(rest), let (authenticatorData, signature) = twoParts(signed) else { return }
        let answer = FuzzDevice.answer(["clientDataJSON": clientData, "authenticatorData": authenticatorData, "signature": signature])
        _ = try? FuzzDevice.party.assert(
            answer, challenge: FuzzDevice.challenge, credential: FuzzDevice.credential, algorithm: .es256, publicKey: FuzzDevice.point,
            userID: "fuzz", requireUserVerification: false)
    }
}

/// A 2-byte big-endian length, that many bytes, then the rest.
private func twoParts(_ bytes: [UInt8]) -> ([UInt8], [UInt8])? {
    guard bytes.count >= 2 else { return nil }
    let length = Int(bytes[0]) << 8 | Int(bytes[1])
    guard bytes.count >= 2 + length else { return nil }
    return (Array(bytes[2..<(2 + length)]), Array(bytes[(2 + length)...]))
}

/// The relying party and the one credential the inputs are checked against:
/// a P-256 key whose secret scalar is 0x4242…42 (the seeds' signer).
enum FuzzDevice {
    static let party = WebAuthnRelyingParty(WebAuthnSettings(rpID: "localhost", origins: ["http://localhost:8080"]))
    static let challenge = [UInt8](repeating: 1, count: 32)
    static let credentialID = [UInt8](repeating: 7, count: 16)
    static let credential = WebAuthnCredential(credentialID: credentialID, signCount: 0, backupEligible: false, backedUp: false, aaguid: [UInt8](repeating: 0, count: 16))
    static let point = HexBytes.decode(
        "043ad3861a95621392516bb593ef05583ed2e5866f5cb6260a3017237fd89b90afd0961c7e37075a6791a39c61f56295b02b6d26567b615e60aa41ee1c8e83388d")!

    static func answer(_ response: [String: [UInt8]]) -> JSON {
        let id = JSON.string(Base64.encodeURLSafe(credentialID))
        let members = JSON.object()
        for (name, bytes) in response { members[name] = .string(Base64.encodeURLSafe(bytes)) }
        return ["id": id, "rawId": id, "type": "public-key", "response": members]
    }
}

@main struct FuzzMain {
    static func main() { FuzzEntry.run(fuzzDeviceInput) }
}
