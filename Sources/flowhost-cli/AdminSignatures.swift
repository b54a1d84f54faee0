import ArgumentParser
import FlowHostCredentials
import FlowHostDevices
import FlowHostPOSIX
import FlowHostStore
import FlowJSON

/// The operator's side of data signatures: checking one, and handing a
/// device's public key to a third party who checks them without FlowHost.
extension Admin {
    struct VerifySignature: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-signature",
            abstract: "Check a data signature by its id, or a full receipt (a JSON file). Exit status 1 when it does not hold.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The dataSignatureID.") var dataSignatureID: String?
        @Option(help: "A receipt as onAuthenticateUserAndSignData gave it.") var receipt: String?

        func validate() throws {
            guard (dataSignatureID == nil) != (receipt == nil) else { throw ValidationError("give a dataSignatureID or --receipt, not both") }
        }

        func run() throws {
            var valid = false
            try adminRun {
                let context = try options.domains().context
                let signatures = DataSignatures(context, issuer: try options.storage.issuer(store: context.store))
                let verdict: DataSignatures.Verdict
                if let receipt {
                    let text: [UInt8]
                    do { text = try SystemFile.read(receipt) } catch {
                        throw CredentialError("cannot read \(receipt): \(error)")
                    }
                    guard let parsed = try? JSON.parse(String(decoding: text, as: UTF8.self)) else {
                        throw CredentialError("\(receipt) is not JSON")
                    }
                    verdict = try signatures.verify(receipt: parsed)
                } else {
                    verdict = try signatures.verify(dataSignatureID: dataSignatureID ?? "")
                }
                valid = verdict.valid
                let value = verdict.json()
                options.emit(value) {
                    verdict.valid
                        ? "valid: issued here, signed by \(verdict.stored?.userID ?? "the user") on device \(verdict.stored?.deviceID ?? "?")"
                        : "NOT valid: \(verdict.reason)" + (verdict.fields.isEmpty ? "" : " (\(verdict.fields.joined(separator: ", ")))" as TerminalText)
                }
            }
            if !valid { throw ExitCode(1) }
        }
    }

    struct ExportKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export-key",
            abstract: "Print a device's public key, or with --issuer the receipt issuer's (PEM or JWK), for checking receipts without FlowHost.")
        @OptionGroup var options: AdminOptions
        @Argument var userID: String?
        @Argument var deviceID: String?
        @Flag(help: "The receipt issuer's key, which countersigns every receipt and session token, instead of a device's.") var issuer = false
        @Flag(help: "With --issuer: every key that verifies (staged, active and retired; not withdrawn) as a JSON Web Key Set.") var jwks = false
        @Option(help: "pem or jwk.") var format = "pem"

        func validate() throws {
            guard format == "pem" || format == "jwk" else { throw ValidationError("--format is pem or jwk") }
            guard issuer == (userID == nil && deviceID == nil), issuer || deviceID != nil else {
                throw ValidationError("give USER DEVICE for a device's key, or --issuer alone")
            }
            guard !jwks || issuer else { throw ValidationError("--jwks goes with --issuer") }
        }

        func run() throws {
            try adminRun {
                let keyID: String
                let publicKey: [UInt8]
                var revoked = false
                if issuer {
                    let issuer = try options.storage.issuer(store: try options.store())
                    if jwks {
                        let keys: [JSON]
                        do { keys = try issuer.keySet().filter { $0.state != .withdrawn }.map(IssuerKeys.jwk) } catch { throw CredentialError("\(error)") }
                        print(JSON.object(["keys": .array(keys)]).serialized())
                        return
                    }
                    do { (keyID, publicKey) = try issuer.publicKey() } catch { throw CredentialError("\(error)") }
                } else {
                    let (userID, deviceID) = (userID ?? "", deviceID ?? "")
                    guard let key = try options.store().read({ try $0.deviceKey(userID: userID, deviceID: deviceID) }),
                        let bytes = HexBytes.decode(key.publicKey)
                    else { throw CredentialError("\(userID) has no key on device \(deviceID)") }
                    (keyID, publicKey, revoked) = (key.keyID, bytes, key.revokedAt != nil)
                }
                if format == "pem" {
                    let pem = PublicKeyExport.pem(publicKey)
                    options.emit(["keyID": .string(keyID), "pem": .string(pem), "revoked": .bool(revoked)]) {
                        TerminalText(lines: pem.dropLast().split(separator: "\n").map { "\($0)" })
                    }
                } else {
                    let jwk = JSON.object()
                    for (name, value) in PublicKeyExport.jwk(publicKey, keyID: keyID) { jwk[name] = .string(value) }
                    print(jwk.serialized())
                }
            }
        }
    }
}
