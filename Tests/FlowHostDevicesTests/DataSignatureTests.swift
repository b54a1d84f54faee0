import FlowHostAccounts
import FlowHostAudit
@testable import FlowHostDevices
import FlowHostPOSIX
import FlowHostStore
import FlowJSON
import Foundation
import TestSupport
import Testing

@Suite struct DataSignatureTests {
    static let message = DataSignatureMessage(
        dataSignatureID: "00112233445566778899aabbccddeeff", userID: "alice", deviceID: "dev\n1", keyID: "k1", authLevel: 4,
        authenticatorType: 1, signedAt: 1_800_000_000, reason: "Invoice 42", payload: "Pay 20 € to Carol")

    /// The exact bytes of spec §19: a third party builds the same from the receipt.
    @Test func theCanonicalMessageIsTheSpecsTenLines() {
        let expected = """
            flowhost-data-signature-v1
            dataSignatureID=00112233445566778899aabbccddeeff
            userID=YWxpY2U=
            deviceID=ZGV2CjE=
            keyID=azE=
            authLevel=4
            authenticatorType=1
            signedAt=1800000000
            reason=SW52b2ljZSA0Mg==
            payload=UGF5IDIwIOKCrCB0byBDYXJvbA==
            """
        #expect(String(decoding: Self.message.bytes, as: UTF8.self) == expected)
    }

    /// The test's own folder, removed with the suite's instance.
    let scratch: TemporaryFolder
    init() throws { scratch = try TemporaryFolder() }

    private func keyring() throws -> DeviceKeyring {
        try DeviceKeyring(folder: scratch.path + "/devices-" + UUID().uuidString)
    }

    /// A store where alice's devices (`deviceID`: custody) are registered
    /// with one key of a keyring, and the signatures domain over them.
    private struct SigningFixture {
        let storage: ThrowAwayStore
        var store: SQLiteStore { storage.store }
        let keys: DeviceKeyring
        let keyID: String
        let publicKey: [UInt8]
        let signatures: DataSignatures
    }

    private func signingFixture(_ devices: KeyValuePairs<String, String> = ["d1": "host"]) throws -> SigningFixture {
        let storage = try ThrowAwayStore(SchemaMigrator(DevicesSchema.register(in:)))
        let (folder, store) = (storage.folder.path, storage.store)
        let keys = try keyring()
        let (keyID, publicKey) = try keys.create()
        let hex = publicKey.map { String(format: "%02x", $0) }.joined()
        try store.write { tx in
            try tx.insert(UserRecord(userID: "alice", status: .active, activationAttemptsLeft: 3, passwordAttemptsLeft: 3, createdAt: 0))
            for (deviceID, custody) in devices {
                try tx.save(DeviceKeyRecord(userID: "alice", deviceID: deviceID, keyID: keyID, publicKey: hex, custody: custody, createdAt: 0))
            }
        }
        let signatures = DataSignatures(DomainContext(store: store, clock: { 1_800_000_000 }), issuer: ReceiptIssuer(path: folder + "/issuer.key", folder: folder + "/issuer-keys", store: store))
        return SigningFixture(storage: storage, keys: keys, keyID: keyID, publicKey: publicKey, signatures: signatures)
    }

    @Test func theKeyringHoldsTheSecretHalfOnlyOfItsOwnKeys() throws {
        let keys = try keyring()
        let (keyID, publicKey) = try keys.create()
        let (otherID, otherKey) = try keys.create()
        #expect(try keys.holdsSecretKey(of: publicKey, keyID: keyID))
        #expect(try !keys.holdsSecretKey(of: otherKey, keyID: keyID), "another key's public half")
        #expect(try !keys.holdsSecretKey(of: publicKey, keyID: String(repeating: "0", count: 32)), "no such file")
        #expect(try !keys.holdsSecretKey(of: publicKey, keyID: "../\(keyID)"), "not a key id")
        // A file swapped for another seed with the registered public half after it.
        let file = keys.folder + "/" + otherID + ".key"
        let forged = Array(Ed25519.makeKeyPair().secretKey.prefix(32)) + otherKey
        #expect(unlink(file) == 0)
        try SystemFile.create(file, bytes: forged, mode: 0o600)
        #expect(try !keys.holdsSecretKey(of: otherKey, keyID: otherID))
    }

    /// A key file is checked on the descriptor it is read through: one that
    /// others can read, a link (to a genuine key, even) and a FIFO are
    /// refused, at once and without reading them.
    @Test func aKeyFileOthersCouldReachIsRefusedNotRead() throws {
        let keys = try keyring()
        let (keyID, publicKey) = try keys.create()
        let file = keys.folder + "/" + keyID + ".key"
        #expect(chmod(file, 0o644) == 0)
        #expect(throws: (any Error).self) { try keys.holdsSecretKey(of: publicKey, keyID: keyID) }
        #expect(!keys.holds(keyID), "what signing refuses is not offered as held")
        #expect(chmod(file, 0o600) == 0)
        #expect(try keys.holdsSecretKey(of: publicKey, keyID: keyID))
        #expect(keys.holds(keyID))
        let (otherID, otherKey) = try keys.create()
        let other = keys.folder + "/" + otherID + ".key"
        #expect(unlink(other) == 0 && symlink(file, other) == 0)
        #expect(throws: (any Error).self) { try keys.sign([1], keyID: otherID, registeredAs: otherKey) }
        #expect(!keys.holds(otherID), "a link to a held key is not held")
        #expect(unlink(other) == 0 && mkfifo(other, 0o600) == 0)
        #expect(throws: (any Error).self) { try keys.holdsSecretKey(of: otherKey, keyID: otherID) }
        #expect(!keys.holds(otherID))
        #expect(unlink(other) == 0)
        #expect(try !keys.holdsSecretKey(of: otherKey, keyID: otherID), "gone: not held, no error")
        #expect(!keys.holds(otherID))
    }

    @Test func aRememberedMatchHoldsOnlyForTheBytesChecked() throws {
        let keys = try keyring()
        let (keyID, publicKey) = try keys.create()
        let (_, otherKey) = try keys.create()
        #expect(try keys.holdsSecretKey(of: publicKey, keyID: keyID))
        #expect(try keys.holdsSecretKey(of: publicKey, keyID: keyID), "the same bytes again")
        // Swapped after a match for another seed with the registered public half.
        let file = keys.folder + "/" + keyID + ".key"
        let original = try SystemFile.read(file)
        let forged = Array(Ed25519.makeKeyPair().secretKey.prefix(32)) + publicKey
        #expect(unlink(file) == 0)
        try SystemFile.create(file, bytes: forged, mode: 0o600)
        #expect(try !keys.holdsSecretKey(of: publicKey, keyID: keyID))
        #expect(unlink(file) == 0)
        try SystemFile.create(file, bytes: original, mode: 0o600)
        #expect(try keys.holdsSecretKey(of: publicKey, keyID: keyID), "the held key back")
        #expect(try !keys.holdsSecretKey(of: otherKey, keyID: keyID), "the same bytes against another public key")
        #expect(try keys.remove(keyID))
        #expect(try !keys.holdsSecretKey(of: publicKey, keyID: keyID), "removed")
    }

    /// A key the keyring made is remembered as matching from the start (the
    /// first login after an activation shows nothing again), and only for
    /// the bytes it wrote: a file swapped after creation is checked, refused
    /// and forgotten.
    @Test func aKeyMadeHereIsRememberedOnlyForTheBytesItWrote() throws {
        let keys = try keyring()
        let (keyID, publicKey) = try keys.create()
        #expect(keys.remembersMatch(keyID), "made from its seed: nothing to show again")
        #expect(try keys.holdsSecretKey(of: publicKey, keyID: keyID))
        let file = keys.folder + "/" + keyID + ".key"
        let forged = Array(Ed25519.makeKeyPair().secretKey.prefix(32)) + publicKey
        #expect(unlink(file) == 0)
        try SystemFile.create(file, bytes: forged, mode: 0o600)
        #expect(try !keys.holdsSecretKey(of: publicKey, keyID: keyID), "swapped after creation")
        #expect(!keys.remembersMatch(keyID))
        let signed = try #require(try keys.sign([1, 2, 3], keyID: keyID, registeredAs: publicKey))
        #expect(!signed.byRegisteredKey, "signed as the file is, for the caller to check and refuse")
        #expect(!Ed25519.verify(signed.signature, of: [1, 2, 3], publicKey: publicKey))
    }

    /// What lets a signing skip its check (spec §14): "by the registered key"
    /// only for a seed that gives it, and then the signature holds under it
    /// whatever the file's second half says.
    @Test func onlyASeedThatGivesTheRegisteredKeySignsAsIt() throws {
        let keys = try keyring()
        let (keyID, publicKey) = try keys.create()
        let (_, otherKey) = try keys.create()
        let bytes = Self.message.bytes
        for round in ["first", "remembered"] {
            let held = try #require(try keys.sign(bytes, keyID: keyID, registeredAs: publicKey))
            #expect(held.byRegisteredKey, "\(round)")
            #expect(Self.message.verify(signature: held.signature, publicKey: publicKey), "\(round)")
        }
        let asOther = try #require(try keys.sign(bytes, keyID: keyID, registeredAs: otherKey))
        #expect(!asOther.byRegisteredKey && !Self.message.verify(signature: asOther.signature, publicKey: otherKey))
        let file = keys.folder + "/" + keyID + ".key"
        let original = try SystemFile.read(file)
        // The right seed with another public half after it: signed as the registered key all the same.
        #expect(unlink(file) == 0)
        try SystemFile.create(file, bytes: Array(original.prefix(32)) + otherKey, mode: 0o600)
        let halfChanged = try #require(try keys.sign(bytes, keyID: keyID, registeredAs: publicKey))
        #expect(halfChanged.byRegisteredKey && Self.message.verify(signature: halfChanged.signature, publicKey: publicKey))
        // Another seed with the registered public half after it: not the registered key, and its signature does not hold.
        #expect(unlink(file) == 0)
        try SystemFile.create(file, bytes: Array(Ed25519.makeKeyPair().secretKey.prefix(32)) + publicKey, mode: 0o600)
        let forged = try #require(try keys.sign(bytes, keyID: keyID, registeredAs: publicKey))
        #expect(!forged.byRegisteredKey && !Self.message.verify(signature: forged.signature, publicKey: publicKey))
        #expect(try keys.sign(bytes, keyID: String(repeating: "0", count: 32), registeredAs: publicKey) == nil, "not held")
    }

    @Test func aSignatureHoldsForExactlyWhatWasSigned() throws {
        let keys = try keyring()
        let (keyID, publicKey) = try keys.create()
        let signature = try #require(try keys.sign(Self.message.bytes, keyID: keyID))
        #expect(Self.message.verify(signature: signature, publicKey: publicKey))
        var changed = [Self.message, Self.message, Self.message, Self.message, Self.message]
        changed[0].payload += " "
        changed[1].reason = "Invoice 43"
        changed[2].authLevel = 1
        changed[3].signedAt += 1
        changed[4].userID = "bob"
        for message in changed { #expect(!message.verify(signature: signature, publicKey: publicKey)) }
        let (_, otherKey) = try keys.create()
        #expect(!Self.message.verify(signature: signature, publicKey: otherKey))
        #expect(!Self.message.verify(signature: Array(signature.dropLast()), publicKey: publicKey))
    }

    @Test func publicKeysExportAsPEMAndJWK() {
        let key = [UInt8](repeating: 0xfb, count: 32)
        let pem = PublicKeyExport.pem(key)
        #expect(pem == "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/s=\n-----END PUBLIC KEY-----\n")
        let jwk = Dictionary(uniqueKeysWithValues: PublicKeyExport.jwk(key, keyID: "k1"))
        #expect(jwk["kty"] == "OKP" && jwk["crv"] == "Ed25519" && jwk["kid"] == "k1")
        #expect(jwk["x"] == "-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_s")
    }

    @Test func onlyASignatureThatVerifiesIsStoredAndAnIDIsUsedOnce() throws {
        let f = try signingFixture()
        let (store, keys, keyID, signatures) = (f.store, f.keys, f.keyID, f.signatures)
        guard case .sign(let pending) = try signatures.begin(
            userID: "alice", deviceID: "d1", payload: "p", reason: "r", authLevel: 0, authenticatorType: 0, verifiedBy: "none")
        else { Issue.record("expected a key"); return }
        #expect(try signatures.finish(pending, signature: [UInt8](repeating: 0, count: 64)) == nil)
        #expect(try signatures.verify(dataSignatureID: pending.message.dataSignatureID).reason == "unknown")
        let signature = try #require(try keys.sign(pending.message.bytes, keyID: keyID))
        let receipt = try #require(try signatures.finish(pending, signature: signature))
        #expect(try signatures.verify(dataSignatureID: receipt.dataSignatureID).valid)
        let json = DataSignatures.json(receipt)
        #expect(try signatures.verify(receipt: json).valid)
        json["dataPayload"] = "q"
        let changed = try signatures.verify(receipt: json)
        #expect(changed.reason == "tampered" && changed.fields == ["dataPayload"])
        #expect(throws: (any Error).self) { try store.write { tx in try tx.insert(receipt) } }
        // Signed by the keyring as the registered key: stored unchecked, and the receipt's own check holds.
        guard case .sign(let next) = try signatures.begin(
            userID: "alice", deviceID: "d1", payload: "p2", reason: "r", authLevel: 0, authenticatorType: 0, verifiedBy: "none")
        else { Issue.record("expected a key"); return }
        #expect(next.bytes == next.message.bytes)
        let held = try #require(try keys.sign(next.bytes, keyID: keyID, registeredAs: next.publicKey))
        let heldReceipt = try #require(try signatures.finish(next, signature: held.signature, byRegisteredKey: held.byRegisteredKey))
        #expect(try signatures.verify(receipt: DataSignatures.json(heldReceipt)).valid)
    }

    /// A host-custody signing reads the key, signs and stores in one
    /// transaction: a held key signs as the registered key; no key, a key the
    /// keyring does not sign with, or a signature that does not hold stores
    /// nothing; a client-custody key is handed back to sign elsewhere.
    @Test func aHeldKeySignsAndStoresInOneTransaction() throws {
        let f = try signingFixture(["d1": "host", "phone": "client"])
        let (store, keys, signatures) = (f.store, f.keys, f.signatures)
        func sign(_ deviceID: String, _ with: (DataSignatures.Pending) -> (signature: [UInt8], byRegisteredKey: Bool)?) throws
            -> DataSignatures.HeldOutcome
        {
            try signatures.signHeld(
                userID: "alice", deviceID: deviceID, payload: "p", reason: "r", authLevel: 0, authenticatorType: 0, verifiedBy: "none", sign: with)
        }
        func receipts() throws -> Int { try store.read { try $0.query("SELECT COUNT(*) FROM signature_receipt", []) { $0.int(0) } }[0] }
        func audited(_ outcome: String) throws -> Int {
            try store.read { try $0.query("SELECT COUNT(*) FROM audit WHERE action = 'data.sign' AND outcome = ?", [.text(outcome)]) { $0.int(0) } }[0]
        }
        let byKeyring: (DataSignatures.Pending) -> (signature: [UInt8], byRegisteredKey: Bool)? = { pending in
            (try? keys.sign(pending.bytes, keyID: pending.key.keyID, registeredAs: pending.publicKey)).flatMap { $0 }.map { ($0.signature, $0.byRegisteredKey) }
        }
        guard case .signed(let receipt) = try sign("d1", byKeyring) else { Issue.record("expected a receipt"); return }
        #expect(try signatures.verify(receipt: DataSignatures.json(receipt)).valid)
        #expect(receipt.dataSignatureID.hasPrefix("006b49d200") && receipt.dataSignatureID.utf8.count == 32, "time first: 1,800,000,000 in hex")
        #expect(try receipts() == 1 && audited("ok") == 1)
        guard case .notSigned = try sign("d1", { _ in nil }) else { Issue.record("nothing to sign with signs nothing"); return }
        guard case .notSigned = try sign("d1", { _ in ([UInt8](repeating: 7, count: 64), false) }) else {
            Issue.record("a signature that does not hold is refused"); return
        }
        #expect(try receipts() == 1 && audited("bad-signature") == 1)
        guard case .noKey = try sign("d2", byKeyring) else { Issue.record("no key on d2"); return }
        var handedBack: DataSignatures.Pending?
        if case .elsewhere(let pending) = try sign("phone", { _ in Issue.record("a client's key is not the keyring's"); return nil }) {
            handedBack = pending
        }
        #expect(handedBack?.key.custody == "client")
        _ = try store.write { try $0.revokeDeviceKey(userID: "alice", deviceID: "d1", at: 1_800_000_000) }
        guard case .noKey = try sign("d1", byKeyring) else { Issue.record("a revoked key signs nothing"); return }
        #expect(try receipts() == 1)
    }

    /// A client-custody key revoked while the client signed: its signature,
    /// valid as it is, is not stored, and the refusal is audited.
    @Test func aKeyRevokedDuringTheClientsSigningStoresNothing() throws {
        let f = try signingFixture(["phone": "client"])
        let (store, keys, keyID, signatures) = (f.store, f.keys, f.keyID, f.signatures)
        func pending() throws -> DataSignatures.Pending {
            guard case .sign(let pending) = try signatures.begin(
                userID: "alice", deviceID: "phone", payload: "p", reason: "r", authLevel: 0, authenticatorType: 0, verifiedBy: "none")
            else { throw DeviceError("expected a key") }
            return pending
        }
        let first = try pending()
        let signature = try #require(try keys.sign(first.bytes, keyID: keyID))
        _ = try store.write { try $0.revokeDeviceKey(userID: "alice", deviceID: "phone", at: 1_800_000_000) }
        #expect(try signatures.finish(first, signature: signature) == nil)
        let refused = try store.read { try $0.query("SELECT outcome FROM audit WHERE action = 'data.sign'", []) { $0.string(0) } }
        #expect(refused == ["key-revoked"])
        #expect(try signatures.verify(dataSignatureID: first.message.dataSignatureID).reason == "unknown")
    }
}
