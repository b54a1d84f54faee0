import FlowHostAudit
import FlowHostPOSIX
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The operator's side of the issuer's key set (`flowhost admin
/// rotate-issuer`, `withdraw-issuer`, `export-key --issuer --jwks`,
/// `check`). A rotation has two steps, so that no machine is ever asked to
/// sign with a key it lacks: `stage` makes the next key, writes its secret
/// half here and publishes its public half (a verifier can fetch it before
/// it signs anything); once its file is on every machine that signs,
/// `activate` makes it the one that signs and retires the one before. The
/// store's unique indexes allow one staged and one active key, so hosts and
/// machines acting at once cannot activate two different keys.
///
/// Each step writes an audit row in its own transaction (`issuer.stage`,
/// `issuer.activate`, `issuer.withdraw`, with the key's id and a
/// withdrawal's reason; never key material), so `events.command` can run
/// for it.
extension ReceiptIssuer {
    /// Every key, oldest first (after registering the first key, if none is).
    public func keySet() throws -> [IssuerKeyRecord] {
        _ = try activeKey()
        return try store.read { try $0.issuerKeys() }
    }

    /// Makes the next key: its file in `folder`, its public half staged.
    public func stage(audit: AuditLog) throws -> IssuerKeyRecord {
        _ = try activeKey()
        if let staged = try store.read({ try $0.issuerKeys() }).first(where: { $0.state == .staged }) {
            throw DeviceError("key \(staged.keyID) is staged already: activate it (rotate-issuer --activate \(staged.keyID)) or withdraw it")
        }
        var (publicKey, secret) = Ed25519.makeKeyPair()
        defer { SecureRandom.wipe(&secret) }
        let keyID = Ed25519.keyID(of: publicKey)
        try PrivateFile.makeFolders(folder)
        do { try SystemFile.create(keyFile(keyID), bytes: secret, mode: 0o600) } catch {
            throw DeviceError("cannot write the issuer key \(keyFile(keyID)): \(error)")
        }
        do {
            return try store.write { tx in
                // Read again inside the write: the unique index is the last word when two stage at once.
                if let staged = try tx.issuerKeys().first(where: { $0.state == .staged }) {
                    throw DeviceError("key \(staged.keyID) was staged meanwhile: activate it or withdraw it")
                }
                try tx.insertIssuerKey(keyID: keyID, publicKey: publicKey, state: .staged, at: DomainContext.now())
                try audit.row(tx, nil, nil, "issuer.stage", "ok", ["keyID": .string(keyID)])
                return try tx.issuerKey(keyID)!
            }
        } catch {
            unlink(keyFile(keyID))
            throw error
        }
    }

    /// Makes the staged key `keyID` the one that signs, and retires the
    /// active one. This machine must hold its file: the step is meant to be
    /// taken once every machine does (`flowhost admin check` says).
    public func activate(_ keyID: String, audit: AuditLog) throws -> IssuerKeyRecord {
        guard let staged = try store.read({ try $0.issuerKey(keyID) }), staged.state == .staged else {
            throw DeviceError("no staged issuer key \(keyID): stage one with rotate-issuer")
        }
        var secret = try secretKey(of: staged)
        SecureRandom.wipe(&secret)
        let now = DomainContext.now()
        let activated = try store.write { tx in
            guard let current = try tx.activeIssuerKey() else { throw DeviceError("the issuer key set has no active key") }
            guard try tx.moveIssuerKey(current.keyID, from: .active, to: .retired, at: now),
                try tx.moveIssuerKey(keyID, from: .staged, to: .active, at: now)
            else { throw DeviceError("the key set changed meanwhile: look at it again (export-key --issuer --jwks)") }
            try audit.row(tx, nil, nil, "issuer.activate", "ok", ["keyID": .string(keyID), "retiredKeyID": .string(current.keyID)])
            return try tx.issuerKey(keyID)!
        }
        forget()
        return activated
    }

    /// Withdraws a retired or staged key: it verifies nothing from now on,
    /// and what it signed reads `revoked` with `reason`. The active key is
    /// replaced first (a deployment always has one that signs).
    public func withdraw(_ keyID: String, reason: String, audit: AuditLog) throws -> IssuerKeyRecord {
        try store.write { tx in
            guard let record = try tx.issuerKey(keyID) else { throw DeviceError("no issuer key \(keyID)") }
            switch record.state {
            case .active: throw DeviceError("\(keyID) is the active key: stage and activate another first")
            case .withdrawn: throw DeviceError("\(keyID) is withdrawn already")
            case .staged, .retired:
                _ = try tx.moveIssuerKey(keyID, from: record.state, to: .withdrawn, at: DomainContext.now(), reason: reason)
                try audit.row(tx, nil, nil, "issuer.withdraw", "ok", ["keyID": .string(keyID), "reason": .string(reason)])
            }
            return try tx.issuerKey(keyID)!
        }
    }

    /// What this machine lacks to sign now and after the staged key's
    /// activation: the active and staged keys' files, each matching its
    /// public half. Empty when all is well, or when the set has no key yet.
    public func localProblems() throws -> [String] {
        try store.read { try $0.issuerKeys() }.filter { $0.state == .active || $0.state == .staged }.compactMap { record in
            do {
                var secret = try secretKey(of: record)
                SecureRandom.wipe(&secret)
                return nil
            } catch {
                return "\(error)"
            }
        }
    }
}
