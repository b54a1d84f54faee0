@testable import FlowHostDevices
import FlowJSON
import Testing

/// Authenticator data and COSE keys, parsed strictly; the relying party's
/// checks of a whole assertion made with a real P-256 key (libcrypto's).
@Suite struct WebAuthnTests {
    static let rpID = "login.example.com"
    static let origin = "https://login.example.com"

    /// CBOR of a COSE key map, labels and values given as already-encoded items.
    static func map(_ entries: [([UInt8], [UInt8])]) -> [UInt8] {
        [0xa0 | UInt8(entries.count)] + entries.flatMap { $0.0 + $0.1 }
    }

    static func bytes(_ value: [UInt8]) -> [UInt8] { [0x58, UInt8(value.count)] + value }

    static func ec2Key(_ point: [UInt8]) -> [UInt8] {
        map([([0x01], [0x02]), ([0x03], [0x26]), ([0x20], [0x01]), ([0x21], bytes(Array(point[1..<33]))), ([0x22], bytes(Array(point[33...])))])
    }

    static func authData(
        rpID: String = rpID, flags: UInt8 = 0x05, count: UInt32 = 1, credential: (id: [UInt8], key: [UInt8])? = nil, trailing: [UInt8] = []
    ) -> [UInt8] {
        var data = SHA256.digest(Array(rpID.utf8)) + [flags | (credential == nil ? 0 : 0x40)]
        data += [UInt8(count >> 24), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff), UInt8(count & 0xff)]
        if let credential {
            data += [UInt8](repeating: 7, count: 16) + [UInt8(credential.id.count >> 8), UInt8(credential.id.count & 0xff)] + credential.id + credential.key
        }
        return data + trailing
    }

    @Test func parsesAttestedCredentialDataAndItsKey() throws {
        let point = try P256SigningKey().publicKey()
        let data = try AuthenticatorData(Self.authData(flags: 0x0d, count: 9, credential: ([1, 2, 3], Self.ec2Key(point))))
        #expect(data.flags.contains([.userPresent, .userVerified, .backupEligible]) && !data.flags.contains(.backedUp))
        #expect(data.signCount == 9 && data.rpIDHash == SHA256.digest(Array(Self.rpID.utf8)))
        let attested = try #require(data.attestedCredential)
        #expect(attested.credentialID == [1, 2, 3] && attested.aaguid == [UInt8](repeating: 7, count: 16))
        let (algorithm, key) = try COSEKey.parse(attested.publicKey)
        #expect(algorithm == .es256 && key == point)
        let okp = Self.map([([0x01], [0x01]), ([0x03], [0x27]), ([0x20], [0x06]), ([0x21], Self.bytes([UInt8](repeating: 9, count: 32)))])
        #expect(try COSEKey.parse(CBORReader.decode(okp)) == (.ed25519, [UInt8](repeating: 9, count: 32)))
    }

    @Test func refusesMalformedAuthenticatorData() throws {
        let key = Self.ec2Key(try P256SigningKey().publicKey())
        let refused: [(String, [UInt8])] = [
            ("short", Array(Self.authData().prefix(36))),
            ("bytes after it", Self.authData(trailing: [0])),
            ("AT without data", Self.authData(flags: 0x45)),
            ("reserved bit 0x02", Self.authData(flags: 0x07)),
            ("reserved bit 0x20", Self.authData(flags: 0x25)),
            ("BS without BE", Self.authData(flags: 0x15)),
            ("ED without extensions", Self.authData(flags: 0x85)),
            ("extensions that are not a map", Self.authData(flags: 0x85, trailing: [0x01])),
            ("an empty credential id", Self.authData(credential: ([], key))),
            ("a credential id past the end", Array(Self.authData(credential: ([1, 2, 3], key)).prefix(37 + 18 + 2))),
            ("a COSE key cut short", Array(Self.authData(credential: ([1], key)).dropLast())),
            ("a key then garbage", Self.authData(credential: ([1], key), trailing: [0xff])),
            ("longer than the bound", Self.authData(flags: 0x85, trailing: [0x59, 0x10, 0x00] + [UInt8](repeating: 0, count: 4096))),
        ]
        for (what, bytes) in refused {
            #expect(throws: WebAuthnError.self, "\(what)") { try AuthenticatorData(bytes) }
        }
        let long = [UInt8](repeating: 1, count: 1024)
        #expect(throws: WebAuthnError.self, "a credential id over 1023 bytes") {
            try AuthenticatorData(Self.authData(credential: (long, key)))
        }
        #expect(try AuthenticatorData(Self.authData(credential: (Array(long.dropLast()), key))).attestedCredential?.credentialID.count == 1023)
        #expect(try AuthenticatorData(Self.authData(flags: 0x85, trailing: [0xa0])).attestedCredential == nil, "an empty extensions map")
    }

    @Test func refusesOtherCOSEKeys() throws {
        let x = Self.bytes([UInt8](repeating: 1, count: 32))
        let keys: [(String, [UInt8])] = [
            ("RS256", Self.map([([0x01], [0x03]), ([0x03], [0x39, 0x01, 0x00]), ([0x20], x), ([0x21], [0x43, 1, 0, 1])])),
            ("ES384", Self.map([([0x01], [0x02]), ([0x03], [0x38, 0x22]), ([0x20], [0x02]), ([0x21], x), ([0x22], x)])),
            ("ES256 on another curve", Self.map([([0x01], [0x02]), ([0x03], [0x26]), ([0x20], [0x08]), ([0x21], x), ([0x22], x)])),
            ("EdDSA on X25519", Self.map([([0x01], [0x01]), ([0x03], [0x27]), ([0x20], [0x04]), ([0x21], x)])),
            ("a short coordinate", Self.map([([0x01], [0x02]), ([0x03], [0x26]), ([0x20], [0x01]), ([0x21], [0x41, 0]), ([0x22], x)])),
            ("an extra member", Self.map([([0x01], [0x01]), ([0x03], [0x27]), ([0x20], [0x06]), ([0x21], x), ([0x02], [0x41, 0])])),
            ("a text label", Self.map([([0x01], [0x01]), ([0x03], [0x27]), ([0x20], [0x06]), ([0x21], x), ([0x61, 0x61], [0x00])])),
            ("not a map", [0x80]),
        ]
        for (what, key) in keys {
            #expect(throws: WebAuthnError.self, "\(what)") { try COSEKey.parse(CBORReader.decode(key)) }
        }
    }

    /// An assertion by `key` over `challenge`, as a browser's toJSON() gives it.
    static func assertion(
        _ key: P256SigningKey, credentialID: [UInt8], challenge: [UInt8], authData: [UInt8] = authData(), origin: String = origin,
        type: String = "webauthn.get"
    ) throws -> JSON {
        let client = Array(#"{"type":"\#(type)","challenge":"\#(Base64.encodeURLSafe(challenge))","origin":"\#(origin)"}"#.utf8)
        let signature = try key.sign(authData + SHA256.digest(client))
        let id = Base64.encodeURLSafe(credentialID)
        return [
            "id": .string(id), "rawId": .string(id), "type": "public-key",
            "response": [
                "clientDataJSON": .string(Base64.encodeURLSafe(client)), "authenticatorData": .string(Base64.encodeURLSafe(authData)),
                "signature": .string(Base64.encodeURLSafe(signature)),
            ],
        ]
    }

    @Test func anAssertionHoldsOnlyAsSent() throws {
        let key = try P256SigningKey()
        let point = try key.publicKey()
        let party = WebAuthnRelyingParty(WebAuthnSettings(rpID: Self.rpID, origins: [Self.origin]))
        let credential = WebAuthnCredential(credentialID: [1, 2, 3], signCount: 0, backupEligible: false, backedUp: false, aaguid: [])
        let challenge = [UInt8](repeating: 5, count: 32)
        func check(_ answer: JSON, uv: Bool = false) throws(WebAuthnError) -> WebAuthnRelyingParty.Assertion {
            try party.assert(answer, challenge: challenge, credential: credential, algorithm: .es256, publicKey: point, userID: "pat", requireUserVerification: uv)
        }
        let good = try check(try Self.assertion(key, credentialID: [1, 2, 3], challenge: challenge))
        #expect(good.userVerified && good.authenticatorData.signCount == 1)
        let refused: [(String, JSON, Bool)] = [
            ("wrong-challenge", try Self.assertion(key, credentialID: [1, 2, 3], challenge: [UInt8](repeating: 6, count: 32)), false),
            ("wrong-origin", try Self.assertion(key, credentialID: [1, 2, 3], challenge: challenge, origin: "https://login.example.com:8443"), false),
            ("wrong-type", try Self.assertion(key, credentialID: [1, 2, 3], challenge: challenge, type: "webauthn.create"), false),
            ("wrong-rp", try Self.assertion(key, credentialID: [1, 2, 3], challenge: challenge, authData: Self.authData(rpID: "example.com")), false),
            ("user-not-present", try Self.assertion(key, credentialID: [1, 2, 3], challenge: challenge, authData: Self.authData(flags: 0x04)), false),
            ("user-not-verified", try Self.assertion(key, credentialID: [1, 2, 3], challenge: challenge, authData: Self.authData(flags: 0x01)), true),
            ("synced-credential", try Self.assertion(key, credentialID: [1, 2, 3], challenge: challenge, authData: Self.authData(flags: 0x0d)), false),
            ("wrong-credential", try Self.assertion(key, credentialID: [1, 2, 4], challenge: challenge), false),
            ("bad-signature", try Self.assertion(try P256SigningKey(), credentialID: [1, 2, 3], challenge: challenge), false),
        ]
        for (reason, answer, uv) in refused {
            #expect(throws: WebAuthnError.self, "\(reason)") { try check(answer, uv: uv) }
            do { _ = try check(answer, uv: uv) } catch { #expect(error.reason == reason) }
        }
    }

    @Test func theCounterShowsAClone() {
        #expect(!WebAuthnCounter.wentBackwards(stored: 0, asserted: 0), "an authenticator without a counter")
        #expect(!WebAuthnCounter.wentBackwards(stored: 4, asserted: 5))
        #expect(WebAuthnCounter.wentBackwards(stored: 5, asserted: 5))
        #expect(WebAuthnCounter.wentBackwards(stored: 5, asserted: 0))
        #expect(!WebAuthnCounter.wentBackwards(stored: 0, asserted: 1))
    }

    @Test func settingsTakeOnlyExactOrigins() throws {
        #expect(WebAuthnSettings.isOrigin("https://login.example.com"))
        #expect(WebAuthnSettings.isOrigin("https://login.example.com:8443"))
        #expect(WebAuthnSettings.isOrigin("http://localhost:8080"))
        #expect(WebAuthnSettings.isOrigin("android:apk-key-hash:" + Base64.encodeURLSafe(SHA256.digest([1]))))
        for origin in ["http://login.example.com", "https://login.example.com/", "https://Login.example.com", "https://a.com:0", "https://a.com:080",
                       "android:apk-key-hash:abc", "https://", "login.example.com", "http://localhost.evil.com"] {
            #expect(!WebAuthnSettings.isOrigin(origin), "\(origin)")
        }
    }
}
