import ArgumentParser
import FlowHostCredentials
import FlowHostDevices
import FlowJSON

/// The issuer's key set from the command line (`ReceiptIssuer`,
/// `IssuerKeySet`): rotation in two steps, and withdrawal.
enum IssuerKeys {
    /// A key as `rotate-issuer` and `withdraw-issuer` print it, and as
    /// `export-key --issuer --jwks` lists it (with the JWK's members).
    static func json(_ record: IssuerKeyRecord) -> JSON {
        let value: JSON = ["keyID": .string(record.keyID), "state": .string(record.state.rawValue), "createdAt": .int(Int(record.createdAt))]
        if let at = record.activatedAt { value["activatedAt"] = .int(Int(at)) }
        if let at = record.retiredAt { value["retiredAt"] = .int(Int(at)) }
        if let at = record.withdrawnAt { value["withdrawnAt"] = .int(Int(at)) }
        if let reason = record.withdrawnReason { value["withdrawnReason"] = .string(reason) }
        return value
    }

    /// An RFC 7517 JWK of the key, with `use: sig` and its state.
    static func jwk(_ record: IssuerKeyRecord) -> JSON {
        let value = JSON.object()
        for (name, member) in PublicKeyExport.jwk(record.publicKey, keyID: record.keyID) { value[name] = .string(member) }
        value["use"] = "sig"
        value["alg"] = "EdDSA"
        value["flowhostState"] = .string(record.state.rawValue)
        return value
    }

    /// Runs a key-set step, its error as the admin commands report one.
    static func run(_ body: () throws -> Void) throws {
        try adminRun {
            do { try body() } catch let error as DeviceError { throw CredentialError(error.description) }
        }
    }
}

extension Admin {
    struct RotateIssuer: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-issuer",
            abstract: "Stage the issuer's next key, or with --activate make the staged key the one that signs.",
            discussion: """
                A rotation has two steps. rotate-issuer makes the next key, writes its secret half beside the store (with \
                PostgreSQL, in the state folder's issuer-keys/) and publishes its public half (export-key --issuer --jwks). \
                Copy that file to every machine that signs; flowhost admin check fails on a machine without it. Then \
                rotate-issuer --activate KEYID makes it sign, and the key before it keeps verifying what it signed. Hosts \
                take up the new key within a minute.
                """)
        @OptionGroup var options: AdminOptions
        @Option(help: "Make this staged key the one that signs (the key before it is retired).") var activate: String?

        func run() throws {
            try IssuerKeys.run {
                let context = try options.domains().context
                let issuer = try options.storage.issuer(store: context.store)
                let record = try activate.map { try issuer.activate($0, audit: context.audit) } ?? issuer.stage(audit: context.audit)
                options.emit(IssuerKeys.json(record)) {
                    record.state == .staged
                        ? "staged \(record.keyID): copy \(issuer.keyFile(record.keyID)) to every machine that signs, then rotate-issuer --activate \(record.keyID)"
                        : "\(record.keyID) signs from now on (hosts take it up within a minute)"
                }
            }
        }
    }

    struct WithdrawIssuer: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "withdraw-issuer",
            abstract: "Withdraw a retired or staged issuer key: it verifies nothing from now on, and what it signed reads revoked.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The key's id (export-key --issuer --jwks lists them).") var keyID: String
        @Option(help: "Why, as verify-signature will say.") var reason: String

        func run() throws {
            try IssuerKeys.run {
                let context = try options.domains().context
                let record = try options.storage.issuer(store: context.store).withdraw(keyID, reason: reason, audit: context.audit)
                options.emit(IssuerKeys.json(record)) { "withdrawn \(record.keyID): \(reason)" }
            }
        }
    }
}
