import FlowHostClient
import FlowHostES256
import Foundation
import XCTest
import enum FlowHostDevices.P256  // the host's verifier (its other names are the host's own)

/// `PlatformKeys` with P-256 keys: the signatures it answers (low s, strict
/// DER), checked by the host's own verifier; then against the built host,
/// a key whose platform always gives the high-s form activates, logs in and
/// steps up, because the handler lowers s.
final class PlatformKeysTests: XCTestCase {
    func testLowSTurnsAHighSIntoItsOtherFormAndLeavesALowOne() throws {
        let r = [UInt8](repeating: 0x11, count: 32)
        let half = ES256SignatureTestValues.halfOrder
        XCTAssertEqual(ES256Signature.lowS(r + half), r + half, "n/2 is low")
        // n − (⌊n/2⌋ + 1) = ⌊n/2⌋, as n is odd.
        XCTAssertEqual(ES256Signature.lowS(r + ES256SignatureTestValues.add1(half)), r + half)
        XCTAssertEqual(ES256Signature.lowS(r + ES256SignatureTestValues.subtract1(ES256SignatureTestValues.order)), r + [UInt8](repeating: 0, count: 31) + [1])
        XCTAssertNil(ES256Signature.lowS(r))
        // DER: a leading zero dropped, a zero byte before a set high bit.
        XCTAssertEqual(ES256Signature.der([UInt8](repeating: 0, count: 31) + [5] + [UInt8](repeating: 0x80, count: 32)),
                       [0x30, 0x26, 0x02, 0x01, 0x05, 0x02, 0x21, 0x00] + [UInt8](repeating: 0x80, count: 32))
    }

    func testTheAnswersSignaturesAreLowSDERThatTheHostsVerifierAccepts() async throws {
        let keys = PlatformKeys(algorithms: [.es256]) { _, _ in HighSKey(try SoftwareP256Key()) }
        let made = try await keys.createDeviceKey(["userID": "alice", "purpose": "activation", "algorithms": ["Ed25519", "ES256"]])
        XCTAssertEqual(made["algorithm"], "ES256")
        let point = [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(made["publicKey"]?.stringValue))))
        XCTAssertTrue(point.count == 65 && point[0] == 0x04)
        XCTAssertTrue(try P256.isValidPublicKey(point))
        let key = try XCTUnwrap(keys.key(try XCTUnwrap(made["keyID"]?.stringValue)))
        for index in 0..<32 {
            let challenge = Data("flowhost-device-proof-v1\nalice\nphone\n\(index)\nlogin".utf8)
            let answer = try await keys.signDeviceChallenge(["keyID": made["keyID"]!, "challenge": .string(challenge.base64EncodedString())])
            let signature = [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(answer["signature"]?.stringValue))))
            XCTAssertEqual(signature.first, 0x30, "DER")
            XCTAssertTrue(P256.verify(signature, of: [UInt8](challenge), publicKey: point), "low s, strict DER")
            let high = [UInt8](try await key.signature(for: challenge))
            XCTAssertTrue(ES256Signature.isHigh(Array(high[32...])))
            XCTAssertFalse(P256.verify(high, of: [UInt8](challenge), publicKey: point), "the platform's own high-s form is refused")
        }
    }

    func testAKeyIsOfAnAlgorithmTheHostOffers() async throws {
        let keys = PlatformKeys.software()
        XCTAssertEqual(try keys.choose(offered: ["Ed25519", "ES256"]), .es256)
        XCTAssertThrowsError(try keys.choose(offered: ["Ed25519"]))
        XCTAssertThrowsError(try keys.choose(offered: nil), "a host that names none takes Ed25519 only")
        do {
            _ = try await keys.signDeviceChallenge(["keyID": "unknown", "challenge": "AA=="])
            XCTFail("no such key")
        } catch let error as FlowHostClient.HandlerError {
            XCTAssertEqual(error.reason, .unavailable)
        }
    }

    func testAP256KeyActivatesLogsInAndStepsUpWithTheBuiltHost() async throws {
        let folder = try BuiltHost.scratchFolder(for: self)
        let store = folder + "/store.sqlite", config = folder + "/config.json"
        try JSONEncoder().encode(FlowHostClientTests.config).write(to: URL(fileURLWithPath: config))
        let code = try XCTUnwrap(try BuiltHost.admin(["add-user", "alice"], store: store, config: config)["activationCode"]?.stringValue)
        let signed = SignedMessages()
        let keys = PlatformKeys(algorithms: [.es256]) { _, _ in HighSKey(try SoftwareP256Key(), signed: signed) }
        let host = try FlowHostClient(executable: try BuiltHost.binary, arguments: ["--store", store, "--config", config])
        keys.attach(to: host)
        try await host.initialize(device: ["deviceID": "swift-p256", "deviceName": "Swift", "ldaCapabilities": [], "keyCustody": "platform"])
        _ = try await host.nextEvent("getUser")
        try await host.setUser(userName: "alice")
        _ = try await host.nextEvent("getActivationCode")
        try await host.setActivationCode(activationCode: code)
        _ = try await host.nextEvent("getDeviceName")
        try await host.setDeviceName(deviceName: "Swift")
        _ = try await host.nextEvent("getPassword")
        try await host.setPassword(password: FlowHostClientTests.password, challengeMode: 1)
        _ = try await host.nextEvent("onUserLoggedIn")
        let device = try XCTUnwrap(try BuiltHost.admin(["devices", "alice"], store: store, config: config)[0])
        XCTAssertEqual(device["keyAlgorithm"], "ES256")
        XCTAssertEqual(device["keyCustody"], "platform")

        try await host.logOff(userID: "alice")
        _ = try await host.nextEvent("getUser")
        try await host.setUser(userName: "alice")
        _ = try await host.nextEvent("getPassword")
        try await host.setPassword(password: FlowHostClientTests.password, challengeMode: 0)
        _ = try await host.nextEvent("onUserLoggedIn")
        let reasons = await signed.reasons
        XCTAssertEqual(reasons.last, "login", "the login was proved with the key")

        let notified = try BuiltHost.admin(
            ["notify", "alice", "--subject", "Pay 20 EUR to Carol?", "--message", "Invoice 42", "--action", "Accept=accept:1", "--action", "Reject=reject"],
            store: store, config: config)
        try await host.updateNotification(notificationID: try XCTUnwrap(notified["notification_uuid"]?.stringValue), response: "accept")
        _ = try await host.nextEvent("getPassword")
        try await host.setPassword(password: FlowHostClientTests.password, challengeMode: 3)
        guard case .onUpdateNotification(let updated) = try await host.nextEvent("onUpdateNotification") else { return XCTFail() }
        XCTAssertEqual(updated.pArgs?.value(at: "response.StatusCode"), 100, "\(updated.params)")
        let afterStepUp = await signed.reasons
        XCTAssertTrue(afterStepUp.dropFirst(reasons.count).contains { $0.hasPrefix("step-up") }, "\(afterStepUp)")
        let status = try await host.close()
        XCTAssertEqual(status, 0)
    }
}

/// A real P-256 key whose platform always gives the high-s form of its
/// signature (n − s when libcrypto's s is low), as some platforms' signers
/// may: the handler must lower it. Records the proof reasons it signed.
struct HighSKey: DeviceSigningKey {
    let key: SoftwareP256Key
    let signed: SignedMessages?
    init(_ key: SoftwareP256Key, signed: SignedMessages? = nil) { self.key = key; self.signed = signed }

    var algorithm: DeviceKeyAlgorithm { key.algorithm }
    var publicKey: Data { key.publicKey }
    func signature(for message: Data) async throws -> Data {
        await signed?.add(String(decoding: message, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "")
        let raw = [UInt8](try key.signature(for: message))
        let s = Array(raw[32...])
        return Data(raw[..<32] + (ES256Signature.isHigh(s) ? s : ES256SignatureTestValues.subtract(s, from: ES256SignatureTestValues.order)))
    }
}

actor SignedMessages {
    private(set) var reasons: [String] = []
    func add(_ reason: String) { reasons.append(reason) }
}

/// P-256's n and ⌊n/2⌋, and big-endian arithmetic, written out for the tests.
enum ES256SignatureTestValues {
    static let order: [UInt8] = [
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17,
        0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
    ]
    static let halfOrder: [UInt8] = [
        0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xde, 0x73, 0x7d, 0x56, 0xd3, 0x8b,
        0xcf, 0x42, 0x79, 0xdc, 0xe5, 0x61, 0x7e, 0x31, 0x92, 0xa8,
    ]

    static func subtract(_ b: [UInt8], from a: [UInt8]) -> [UInt8] {
        var result = a, borrow = 0
        for index in a.indices.reversed() {
            let difference = Int(a[index]) - Int(b[index]) - borrow
            result[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        return result
    }

    static func subtract1(_ a: [UInt8]) -> [UInt8] { subtract([UInt8](repeating: 0, count: a.count - 1) + [1], from: a) }

    static func add1(_ a: [UInt8]) -> [UInt8] {
        var result = a
        for index in a.indices.reversed() {
            result[index] &+= 1
            if result[index] != 0 { break }
        }
        return result
    }
}
