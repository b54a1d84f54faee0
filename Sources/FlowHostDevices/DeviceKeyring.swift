import CSodium
import FlowHostPOSIX
import FlowHostStore
import FlowHostVocabulary

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Host custody: each device's secret key in a file of its own, in a
/// folder beside the host (mode 0700; each file 0600), never in the store,
/// the audit log or a log line. Whoever can read the folder holds the keys:
/// the folder's permissions are what this custody trusts.
///
/// Used on one thread at a time (the host's loop).
public final class DeviceKeyring {
    public let folder: String

    /// Held keys already shown to match their registered public key, by key
    /// id: a keyed BLAKE2b of the file's bytes and that public key, never
    /// the secret itself. A login reads the file each time; only for the
    /// very bytes already checked against the same public key is the public
    /// key not made again from the seed (215,000 instructions a login).
    private var matched: [String: [UInt8]] = [:]
    /// Who must own every key file: the user running the host.
    private let owner = getuid()
    /// This keyring's own key for those digests, random per process.
    private var matchKey = SecureRandom.bytes(32)

    deinit {
        SecureRandom.wipe(&matchKey)
    }

    public init(folder: String) throws {
        self.folder = folder
        if mkdir(folder, 0o700) != 0, errno != EEXIST {
            throw DeviceError("cannot create the device folder \(folder): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { throw DeviceError("\(folder) is not a folder") }
        guard info.st_uid == getuid(), info.st_mode & 0o077 == 0 else {
            throw DeviceError(
                "refusing the device folder \(folder): others can reach it (mode \(String(info.st_mode & 0o777, radix: 8))); run: chmod 700 \(folder)")
        }
    }

    private func path(_ keyID: String) -> String { folder + "/" + keyID + ".key" }

    /// Makes a key pair, keeps the secret half; returns the key id and the public half.
    public func create() throws -> (keyID: String, publicKey: [UInt8]) {
        var (publicKey, secretKey) = Ed25519.makeKeyPair()
        defer { SecureRandom.wipe(&secretKey) }
        let keyID = Ed25519.keyID(of: publicKey)
        do { try SystemFile.create(path(keyID), bytes: secretKey, mode: 0o600) } catch {
            throw DeviceError("cannot write the device key: \(error)")
        }
        // The pair was just made from its seed: the file's bytes give this
        // public key, so the first login after an activation need not show it
        // again. A file changed later no longer has these bytes' digest.
        matched[keyID] = matchDigest(secretKey, publicKey)
        return (keyID, publicKey)
    }

    /// Whether this host holds the key as signing and proofs read it: a
    /// private regular file of its own, not a link (one `lstat`, no read).
    public func holds(_ keyID: String) -> Bool {
        guard isKeyID(keyID) else { return false }
        let file = path(keyID)
        var info = stat()
        return lstat(file, &info) == 0 && PrivateFile.problem(at: file, info, uid: owner) == nil
    }

    /// Signs with a held key; nil when this host does not hold it.
    public func sign(_ message: [UInt8], keyID: String) throws -> [UInt8]? {
        try withSecretKey(keyID) { Ed25519.sign(message, secretKey: $0) }
    }

    /// A signature made with a held key, and whether that key is the secret
    /// half of the registered public key it was asked for.
    public struct HeldSignature {
        public let signature: [UInt8]
        /// True: made from a seed shown to give the registered public key,
        /// with that public key, so it holds under it by construction and
        /// needs no check (spec §14). False: made with the file as it is,
        /// for the caller to check and refuse.
        public let byRegisteredKey: Bool
    }

    /// Signs with the held key under `keyID` as the secret half of
    /// `publicKey` when it is (`matches`); otherwise with the file as it is.
    /// Nil when this host does not hold the key.
    public func sign(_ message: [UInt8], keyID: String, registeredAs publicKey: [UInt8]) throws -> HeldSignature? {
        try withSecretKey(keyID) { secretKey in
            guard matches(secretKey, publicKey, keyID: keyID) else {
                return HeldSignature(signature: Ed25519.sign(message, secretKey: secretKey), byRegisteredKey: false)
            }
            // libsodium's secret key is the seed, then the public key its
            // hash covers: the registered one, not whatever the file's second half says.
            var registered = secretKey  // copied at the write below, wiped like the original
            defer { SecureRandom.wipe(&registered) }
            registered.replaceSubrange((registered.count - publicKey.count)..<registered.count, with: publicKey)
            return HeldSignature(signature: Ed25519.sign(message, secretKey: registered), byRegisteredKey: true)
        }
    }

    /// Whether this host holds the secret half of `publicKey` under `keyID`:
    /// what a signature made here and checked here would show, without the
    /// signature (spec §14).
    public func holdsSecretKey(of publicKey: [UInt8], keyID: String) throws -> Bool {
        try withSecretKey(keyID) { matches($0, publicKey, keyID: keyID) } ?? false
    }

    /// Whether a match is remembered for `keyID` (tests).
    func remembersMatch(_ keyID: String) -> Bool { matched[keyID] != nil }

    /// Whether the seed in `secretKey` gives `publicKey`, remembered for
    /// these very bytes; a failed check forgets what was remembered.
    private func matches(_ secretKey: [UInt8], _ publicKey: [UInt8], keyID: String) -> Bool {
        let digest = matchDigest(secretKey, publicKey)
        if let known = matched[keyID], sodium_memcmp(known, digest, digest.count) == 0 { return true }
        guard Ed25519.isSecretKey(secretKey, of: publicKey) else {
            matched[keyID] = nil
            return false
        }
        matched[keyID] = digest
        return true
    }

    private func matchDigest(_ secretKey: [UInt8], _ publicKey: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var input = secretKey + publicKey
        defer { SecureRandom.wipe(&input) }
        _ = crypto_generichash(&digest, digest.count, input, UInt64(input.count), matchKey, matchKey.count)
        return digest
    }

    /// The held secret key, checked, lent to `body` and wiped; nil when this host does not hold it.
    private func withSecretKey<T>(_ keyID: String, _ body: ([UInt8]) -> T) throws -> T? {
        guard isKeyID(keyID) else { return nil }
        let file = path(keyID)
        var secretKey: [UInt8]
        do {
            // Checked on the descriptor it is read through (no link followed):
            // one open, one fstat, the reads and a close at every login.
            guard let bytes = try SystemFile.readIfPresent(file, check: { info in
                if let problem = PrivateFile.problem(at: file, info, uid: owner) { throw StoreError("refusing a file others can reach: \(problem)") }
            }) else { return nil }
            secretKey = bytes
        } catch let refusal as StoreError { throw refusal } catch { throw DeviceError("cannot read the device key: \(error)") }
        defer { SecureRandom.wipe(&secretKey) }
        guard secretKey.count == Int(fh_sign_secret_key_bytes()) else { throw DeviceError("the device key file \(file) is damaged") }
        return body(secretKey)
    }

    /// Removes a revoked key's file; false when this host held no such file.
    public func remove(_ keyID: String) throws -> Bool {
        guard isKeyID(keyID) else { return false }
        matched[keyID] = nil
        let file = path(keyID)
        guard unlink(file) == 0 else {
            if errno == ENOENT { return false }
            throw DeviceError("cannot remove the device key \(file): \(String(cString: strerror(errno)))")
        }
        SystemFile.syncFolder(of: file)
        return true
    }

    /// Key ids are 32 hex digits: nothing else ever becomes a file name.
    private func isKeyID(_ keyID: String) -> Bool {
        keyID.utf8.count == 32 && keyID.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}

/// Why a device operation failed (never holds a key).
public struct DeviceError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
