@testable import FlowHostDevices
import FlowHostAccounts
import FlowHostAudit
import FlowHostStore
import FlowHostVocabulary
import Foundation
import TestSupport
import Testing

/// A proof with a key the host holds, made at once: the held secret key
/// checked against the registered public key, the proof kept in memory, and
/// single use like any other.
@Suite struct DeviceProofsTests {
    let storage: ThrowAwayStore
    var store: SQLiteStore { storage.store }
    let proofs: DeviceProofs
    let keys = Ed25519.makeKeyPair()
    let clock = TestClock()

    /// The time the proofs see; a test moves it.
    final class TestClock: @unchecked Sendable {  // one test's thread only
        var now: Int64 = 1_800_000_000
    }

    init() throws {
        storage = try ThrowAwayStore(SchemaMigrator(DevicesSchema.register(in:)))
        let store = storage.store
        let clock = clock
        proofs = DeviceProofs(DomainContext(store: store, clock: { clock.now }))
        try store.write { tx in
            try tx.insert(UserRecord(userID: "alice", status: .active, activationAttemptsLeft: 3, passwordAttemptsLeft: 3, createdAt: 1))
            try tx.save(DeviceRecord(userID: "alice", deviceID: "d1", name: "phone", createdAt: 1, lastAccessAt: 1))
            try tx.save(DeviceRecord(userID: "alice", deviceID: "d2", name: "tablet", createdAt: 1, lastAccessAt: 1))
        }
        try store.write { tx in
            try proofs.register(tx, userID: "alice", deviceID: "d1", keyID: Ed25519.keyID(of: keys.publicKey), publicKey: keys.publicKey, custody: "host")
            try proofs.register(tx, userID: "alice", deviceID: "d2", keyID: "platform-key", publicKey: keys.publicKey, custody: "platform")
        }
    }

    func prove(_ device: String, signingWith secretKey: [UInt8]?) throws -> DeviceProofs.Finish? {
        try proofs.proveHeld(userID: "alice", deviceID: device) { _, publicKey in
            secretKey.map { Ed25519.isSecretKey($0, of: publicKey) } ?? false
        }
    }

    @Test func aWipeZeroesTheBytesWhereTheyLie() {
        var secret = [UInt8](repeating: 0xA5, count: 64)  // its own storage: nothing shares it
        let storage = secret.withUnsafeBufferPointer { $0.baseAddress }
        SecureRandom.wipe(&secret)
        #expect(secret == [UInt8](repeating: 0, count: 64))
        #expect(secret.withUnsafeBufferPointer { $0.baseAddress } == storage, "in place, not a zeroed copy")
    }

    @Test func aSecretKeyIsCheckedByItsSeedNotByTheHalfThatCopiesThePublicKey() throws {
        #expect(Ed25519.isSecretKey(keys.secretKey, of: keys.publicKey))
        // A forged secret key: another seed, followed by the registered public key.
        let forged = Array(Ed25519.makeKeyPair().secretKey.prefix(32)) + keys.publicKey
        #expect(!Ed25519.isSecretKey(forged, of: keys.publicKey))
        #expect(try prove("d1", signingWith: forged) == .refused(reason: "bad-signature"))
        #expect(!Ed25519.isSecretKey(Array(keys.secretKey.prefix(32)), of: keys.publicKey), "a short key")
        #expect(!Ed25519.isSecretKey(keys.secretKey, of: Ed25519.makeKeyPair().publicKey))
    }

    @Test func theRightKeyProvesOnceAndTheProofIsSpentOnce() throws {
        guard case .proven(let proof) = try prove("d1", signingWith: keys.secretKey) else {
            Issue.record("the device's own key did not prove it")
            return
        }
        #expect(try store.write { try proofs.spend($0, proof: proof, userID: "alice", deviceID: "d1" ) })
        #expect(try store.write { try proofs.spend($0, proof: proof, userID: "alice", deviceID: "d1" ) } == false, "single use")
        #expect(try store.write { try proofs.spend($0, proof: proof, userID: "alice", deviceID: "d2" ) } == false, "this device's only")
    }

    @Test func anotherKeyOrNoSignatureIsRefusedAndNothingElseIsProvedHere() throws {
        #expect(try prove("d1", signingWith: Ed25519.makeKeyPair().secretKey) == .refused(reason: "bad-signature"))
        #expect(try prove("d1", signingWith: nil) == .refused(reason: "bad-signature"))
        #expect(try prove("d2", signingWith: keys.secretKey) == nil, "the platform's key: the client is asked, in two steps")
        #expect(try prove("d9", signingWith: keys.secretKey) == .refused(reason: "not-registered"))
        try store.write { tx in _ = try tx.revokeDeviceKey(userID: "alice", deviceID: "d1", at: 2) }
        #expect(try prove("d1", signingWith: keys.secretKey) == .refused(reason: "revoked"))
    }

    @Test func aHeldProofWritesNothingAndASpendThatDoesNotCommitIsGivenBack() throws {
        let before = try store.read { try $0.query("SELECT COUNT(*) FROM device_challenge", []) { $0.int(0) } }
        guard case .proven(let proof) = try prove("d1", signingWith: keys.secretKey) else {
            Issue.record("the device's own key did not prove it")
            return
        }
        #expect(try store.read { try $0.query("SELECT COUNT(*) FROM device_challenge", []) { $0.int(0) } } == before)
        struct RolledBack: Error {}
        #expect(throws: RolledBack.self) {
            try store.write { tx in
                #expect(try proofs.spend(tx, proof: proof, userID: "alice", deviceID: "d1"))
                throw RolledBack()
            }
        }
        #expect(try store.write { try proofs.spend($0, proof: proof, userID: "alice", deviceID: "d1") }, "not committed: still unspent")
        #expect(try store.write { try proofs.spend($0, proof: proof, userID: "alice", deviceID: "d1") } == false, "committed: spent for good")
    }

    @Test func aHeldProofExpires() throws {
        guard case .proven(let proof) = try prove("d1", signingWith: keys.secretKey) else {
            Issue.record("the device's own key did not prove it")
            return
        }
        clock.now += DeviceProofs.proofSeconds
        #expect(try store.write { try proofs.spend($0, proof: proof, userID: "alice", deviceID: "d1") } == false)
    }

    @Test func aRefusedHeldProofIsAudited() throws {
        #expect(try prove("d1", signingWith: nil) == .refused(reason: "bad-signature"))
        let counted = try store.read { try $0.query("SELECT COUNT(*) FROM audit_count WHERE action = 'device.prove'", []) { $0.int(0) } }
        #expect(counted.first ?? 0 > 0)
    }

    /// A platform's proof in its two steps: the challenge is this process's
    /// (memory, single use, a minute), and a proof writes nothing to the store.
    func platformChallenge() throws -> (nonce: [UInt8], message: [UInt8]) {
        guard case .challenge(let nonce, let message, let key) = try proofs.begin(userID: "alice", deviceID: "d2", reason: "login") else {
            Issue.record("no challenge for the platform's key")
            return ([], [])
        }
        #expect(key.custody == "platform")
        return (nonce, message)
    }

    func finish(_ nonce: [UInt8], _ message: [UInt8], device: String = "d2", signature: [UInt8]? = nil) throws -> DeviceProofs.Finish {
        try proofs.finish(userID: "alice", deviceID: device, nonce: nonce, message: message, signature: signature ?? Ed25519.sign(message, secretKey: keys.secretKey))
    }

    func rowCounts() throws -> [Int] {
        try ["device_challenge", "audit_count", "audit"].map { table in
            try store.read { try $0.query("SELECT COUNT(*) FROM \(table)", []) { $0.int(0) } }.first ?? -1
        }
    }

    @Test func aPlatformProofWritesNothingAndItsChallengeIsUsedOnce() throws {
        let before = try rowCounts()
        let (nonce, message) = try platformChallenge()
        guard case .proven(let proof) = try finish(nonce, message) else {
            Issue.record("the platform's signature did not prove the device")
            return
        }
        #expect(try rowCounts() == before, "neither the challenge nor the proof is written")
        #expect(try finish(nonce, message) == .refused(reason: "stale-challenge"), "single use")
        #expect(try store.write { try proofs.spend($0, proof: proof, userID: "alice", deviceID: "d2") })
        #expect(try store.write { try proofs.spend($0, proof: proof, userID: "alice", deviceID: "d2") } == false)
    }

    /// The answer is checked with the key the challenge was issued for; the
    /// login that spends the proof reads the key again, in its transaction.
    @Test func aProofOfAKeyRevokedOrReplacedWhileThePlatformSignedIsNotSpent() throws {
        var (nonce, message) = try platformChallenge()
        try store.write { tx in _ = try tx.revokeDeviceKey(userID: "alice", deviceID: "d2", at: 2) }
        guard case .proven(let revoked) = try finish(nonce, message) else {
            Issue.record("the signature of the challenge's key did not check out")
            return
        }
        #expect(try store.write { try proofs.spend($0, proof: revoked, userID: "alice", deviceID: "d2") } == false, "revoked while the platform signed")

        let replacement = Ed25519.makeKeyPair()
        try store.write { tx in
            try proofs.register(tx, userID: "alice", deviceID: "d2", keyID: "platform-key-2", publicKey: replacement.publicKey, custody: "platform")
        }
        (nonce, message) = try platformChallenge()
        try store.write { tx in
            try proofs.register(tx, userID: "alice", deviceID: "d2", keyID: "platform-key-3", publicKey: Ed25519.makeKeyPair().publicKey, custody: "platform")
        }
        guard case .proven(let replaced) = try finish(nonce, message, signature: Ed25519.sign(message, secretKey: replacement.secretKey)) else {
            Issue.record("the signature of the challenge's key did not check out")
            return
        }
        #expect(try store.write { try proofs.spend($0, proof: replaced, userID: "alice", deviceID: "d2") } == false, "replaced while the platform signed")
    }

    @Test func aPlatformChallengeExpiresIsThisDevicesOnlyAndAWrongSignatureUsesIt() throws {
        var (nonce, message) = try platformChallenge()
        clock.now += DeviceProofs.challengeSeconds
        #expect(try finish(nonce, message) == .refused(reason: "stale-challenge"), "expired")
        (nonce, message) = try platformChallenge()
        #expect(try finish(nonce, message, device: "d1") == .refused(reason: "stale-challenge"), "another device's challenge")
        (nonce, message) = try platformChallenge()
        #expect(try finish(SecureRandom.bytes(32), message) == .refused(reason: "stale-challenge"), "a nonce this host never sent")
        #expect(try finish(nonce, message, signature: Ed25519.sign(message, secretKey: Ed25519.makeKeyPair().secretKey)) == .refused(reason: "bad-signature"))
        #expect(try finish(nonce, message) == .refused(reason: "stale-challenge"), "a wrong answer used it")
        let counted = try store.read { try $0.query("SELECT COUNT(*) FROM audit_count WHERE action = 'device.prove'", []) { $0.int(0) } }
        #expect(counted.first ?? 0 > 0, "refusals are audited")
    }

    /// getUser's remembered users: one statement lists the device's active
    /// registrations whose key the host keeps and has not revoked, most
    /// recent login first (by user id when equal), with each key's id.
    @Test func aDevicesHostHeldKeysComeMostRecentLoginFirstAndOnlyUsable() throws {
        try store.write { tx in
            for user in ["bob", "carol", "dave", "erin", "frank"] {
                try tx.insert(UserRecord(userID: user, status: .active, activationAttemptsLeft: 3, passwordAttemptsLeft: 3, createdAt: 1))
            }
            try tx.save(DeviceRecord(userID: "bob", deviceID: "d1", name: "phone", createdAt: 1, lastAccessAt: 5))
            try tx.save(DeviceRecord(userID: "carol", deviceID: "d1", name: "phone", createdAt: 1, lastAccessAt: 1))
            try tx.save(DeviceRecord(userID: "dave", deviceID: "d1", name: "phone", createdAt: 1, lastAccessAt: 9))
            try tx.save(DeviceRecord(userID: "erin", deviceID: "d1", name: "phone", status: .blocked, createdAt: 1, lastAccessAt: 9))
            try tx.save(DeviceRecord(userID: "frank", deviceID: "d1", name: "phone", createdAt: 1, lastAccessAt: 9))
            for user in ["bob", "carol", "dave", "erin"] {
                try proofs.register(tx, userID: user, deviceID: "d1", keyID: "key-" + user, publicKey: keys.publicKey, custody: "host")
            }
            try proofs.register(tx, userID: "frank", deviceID: "d1", keyID: "key-frank", publicKey: keys.publicKey, custody: "platform")
            try tx.revokeDeviceKey(userID: "dave", deviceID: "d1", at: 2)
        }
        let listed = try store.read { try $0.hostHeldKeys(onDevice: "d1") }
        #expect(listed.map(\.userID) == ["bob", "alice", "carol"], "dave's key is revoked, erin's registration blocked, frank's key the platform's")
        #expect(listed.map(\.keyID) == ["key-bob", Ed25519.keyID(of: keys.publicKey), "key-carol"])
        #expect(try store.read { try $0.hostHeldKeys(onDevice: "d2") }.isEmpty, "alice's key for d2 is the platform's")
    }
}
