import FlowHostDevices
import FlowJSON
import Foundation
import FlowHostPOSIX
import FlowHostStore
import TestSupport
import Testing

/// `jwtJsonTokenInfo`: a compact JWS (EdDSA) a third party checks with the issuer's public key.
@Suite struct SessionTokenTests {
    static func decode(_ segment: Substring) -> [UInt8] {
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return [UInt8](Data(base64Encoded: text)!)
    }

    @Test func theTokenIsSignedByTheIssuerOverItsHeaderAndClaims() throws {
        let storage = try ThrowAwayStore(SchemaMigrator(DevicesSchema.register(in:)))
        let folder = storage.folder.path
        let issuer = ReceiptIssuer(path: folder + "/issuer.key", folder: folder + "/issuer-keys", store: storage.store)
        let token = try SessionToken.make(
            issuer: issuer, userID: "alice", sessionID: "s1", deviceID: "d1", issuedAt: 1_800_000_000, expiresAt: 1_800_043_200,
            factors: ["password"])
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"), "base64url without padding")
        let header = try JSON.parse(String(decoding: Self.decode(parts[0]), as: UTF8.self))
        let claims = try JSON.parse(String(decoding: Self.decode(parts[1]), as: UTF8.self))
        let (keyID, publicKey) = try issuer.publicKey()
        #expect(header["alg"]?.stringValue == "EdDSA" && header["kid"]?.stringValue == keyID)
        #expect(claims["sub"]?.stringValue == "alice" && claims["sid"]?.stringValue == "s1" && claims["exp"]?.intValue == 1_800_043_200)
        #expect(claims["amr"]?.elements.compactMap(\.stringValue) == ["pwd"])
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        #expect(Ed25519.verify(Self.decode(parts[2]), of: signingInput, publicKey: publicKey))
        #expect(!Ed25519.verify(Self.decode(parts[2]), of: signingInput + [0x20], publicKey: publicKey))
    }

    /// Header and claims are written as bytes: exactly this JSON, and a user
    /// id with quotes, a backslash, control characters and non-ASCII text
    /// reads back as it was.
    @Test func theHeaderAndClaimsAreExactlyThisJSON() throws {
        let storage = try ThrowAwayStore(SchemaMigrator(DevicesSchema.register(in:)))
        let folder = storage.folder.path
        let issuer = ReceiptIssuer(path: folder + "/issuer.key", folder: folder + "/issuer-keys", store: storage.store)
        let (keyID, _) = try issuer.publicKey()
        let plain = try SessionToken.make(
            issuer: issuer, userID: "alice", sessionID: "s1", deviceID: "d1", issuedAt: 1_800_000_000, expiresAt: 1_800_043_200,
            factors: ["password", "lda"]
        ).split(separator: ".")
        #expect(String(decoding: Self.decode(plain[0]), as: UTF8.self) == #"{"alg":"EdDSA","typ":"JWT","kid":"\#(keyID)"}"#)
        #expect(
            String(decoding: Self.decode(plain[1]), as: UTF8.self)
                == #"{"iss":"flowhost","sub":"alice","sid":"s1","dev":"d1","iat":1800000000,"exp":1800043200,"amr":["pwd","bio"]}"#)
        let awkward = "a\"b\\c\n\t\u{01}é🔑"
        let parts = try SessionToken.make(
            issuer: issuer, userID: awkward, sessionID: "s2", deviceID: "d\"2", issuedAt: 0, expiresAt: 1, factors: []
        ).split(separator: ".")
        let claims = try JSON.parse(String(decoding: Self.decode(parts[1]), as: UTF8.self))
        #expect(claims["sub"]?.stringValue == awkward && claims["dev"]?.stringValue == "d\"2")
        #expect(claims["amr"]?.elements.isEmpty == true && claims["iat"]?.intValue == 0)
    }
}

