import FlowHostCore
import FlowHostCredentials
import FlowHostDevices
import FlowHostServiceTypes
import FlowHostStore
import FlowHostVocabulary
import FlowJSON
import Logging

/// Data signatures with the device's key, offered to flows:
/// `signatures.sign` (the logged-in user on this device; after a
/// re-authentication in the last `freshSeconds` unless `authLevel` is 0)
/// and `signatures.verify` (by id, or a full receipt).
enum SignaturesModule {
    /// How recent the re-authentication before a signing at level 1 or 4 must be.
    static let freshSeconds: Int64 = 120
    /// What may be verified, and its RDNAAuthenticatorType: a receipt's
    /// `authenticatorType` is the authenticator used, so it never disagrees
    /// with `verifiedBy` (older receipts carry the type asked for).
    static let authenticatorTypes: [String: Int] = ["none": 0, "serverBiometric": 1, "password": 2, "lda": 3]

    static func signed(_ receipt: SignatureReceiptRecord) -> Services.SignaturesSignOutcome {
        .signed(dataSignatureID: receipt.dataSignatureID, payloadSignature: receipt.signature, receipt: DataSignatures.json(receipt))
    }

    static func register(_ signatures: DataSignatures, keyring: DeviceKeyring?, webauthn: WebAuthnSettings?, in engine: HostEngine) {
        // The session and the client reach the name table these services live in: held strongly, none would be freed.
        unowned let hostSession = engine.session
        unowned let client = engine.client
        let logger = engine.logger
        offerAsync(engine, Services.SignaturesSign.self) { caller, call, finish throws(FlowHostError) in
            let (userID, deviceID, level, verifiedBy) = (call.userID, call.deviceID, call.authLevel, call.verifiedBy)
            guard let usedType = authenticatorTypes[verifiedBy] else {
                return finish(.failure(.invalidParams(field: "verifiedBy", reason: "none, lda, password or serverBiometric")))
            }
            guard call.authenticatorType == usedType else {
                return finish(.failure(.invalidParams(field: "authenticatorType", reason: "the type of verifiedBy: \(usedType)")))
            }
            guard hostSession.recentlyProved(userID: userID, deviceID: deviceID, within: level == 0 ? nil : freshSeconds) else {
                return finish(
                    .failure(
                        FlowHostError(.notAllowedNow,
                            message: "signing needs that user logged in here (and, above level 0, re-authenticated in the last \(freshSeconds) seconds)")))
            }
            // A key in the host's custody signs, and its receipt is stored, in one transaction.
            let held: DataSignatures.HeldOutcome
            do {
                held = try signatures.signHeld(
                    userID: userID, deviceID: deviceID, payload: call.payload, reason: call.reason, authLevel: level,
                    authenticatorType: call.authenticatorType, verifiedBy: verifiedBy
                ) { pending in
                    // A host that does not hold the key has nothing to sign with.
                    do {
                        return try keyring?.sign(pending.bytes, keyID: pending.key.keyID, registeredAs: pending.publicKey).map {
                            ($0.signature, $0.byRegisteredKey)
                        }
                    } catch {
                        logger.error("device key refused: \(error)")
                        return nil
                    }
                }
            } catch {
                logger.error("signing with a held key failed: \(error)")
                return finish(.failure(.internalError))
            }
            let pending: DataSignatures.Pending
            switch held {
            case .noKey: return finish(.success(.noKey))
            case .notSigned: return finish(.success(.notSigned))
            case .signed(let receipt): return finish(.success(signed(receipt)))
            case .elsewhere(let inClient): pending = inClient
            }
            let complete: ([UInt8]?) -> Void = { signature in
                do {
                    guard let signature, let receipt = try signatures.finish(pending, signature: signature) else {
                        return finish(.success(.notSigned))
                    }
                    finish(.success(signed(receipt)))
                } catch {
                    logger.error("storing a signature failed: \(error)")
                    finish(.failure(.internalError))
                }
            }
            if pending.key.custody == "webauthn" {
                return signWithWebAuthn(signatures, webauthn, pending, client: client, caller: caller, logger: logger, finish: finish)
            }
            let request: JSON = [
                "keyID": .string(pending.key.keyID), "challenge": .string(Base64.encode(pending.bytes)), "reason": "data-signing",
            ]
            client.request("platform/signDeviceChallenge", request, for: caller) { outcome in
                guard case .success(let answer) = outcome else { return complete(nil) }
                complete(answer["signature"]?.stringValue.flatMap(Base64.decode))
            }
        }

        offerReading(engine, Services.SignaturesVerify.self) { _, p in
            let verdict: DataSignatures.Verdict
            if let receipt = p.opaque("receipt") {
                verdict = try signatures.verify(receipt: receipt)
            } else if let id = try p.optionalString("dataSignatureID") {
                verdict = try signatures.verify(dataSignatureID: id)
            } else {
                throw FlowHostError.invalidParams(field: "dataSignatureID", reason: "a dataSignatureID or a receipt is required")
            }
            return Services.SignaturesVerifyOutcome(
                valid: verdict.valid, reason: verdict.reason, fields: verdict.fields.isEmpty ? nil : verdict.fields,
                receipt: verdict.stored.map(DataSignatures.json))
        }
    }

    /// A WebAuthn device signs with an assertion whose challenge is SHA-256
    /// of the message (spec §19); the receipt keeps the authenticator data
    /// and clientDataJSON the signature covers. The user was verified by the
    /// step-up before it (above level 0): this assertion needs the user's
    /// presence only.
    static func signWithWebAuthn(
        _ signatures: DataSignatures, _ settings: WebAuthnSettings?, _ pending: DataSignatures.Pending, client: ConnectedClient,
        caller: LoadedPlugin, logger: Logger, finish: @escaping (Result<Services.SignaturesSignOutcome, FlowHostError>) -> Void
    ) {
        guard let settings, let credential = pending.key.webauthn else {
            logger.error("a WebAuthn device's signing needs the config section webauthn (rpID, origins)")
            return finish(.success(.notSigned))
        }
        let challenge = WebAuthnSignedData.challenge(for: pending.bytes)
        let request = WebAuthnRequests.assertionRequest(settings, credential, challenge: challenge, userVerification: "preferred")
        client.request("platform/getAssertion", request, for: caller) { outcome in
            guard case .success(let answer) = outcome else { return finish(.success(.notSigned)) }
            let assertion: WebAuthnRelyingParty.Assertion
            do throws(WebAuthnError) {
                assertion = try WebAuthnRelyingParty(settings).assert(
                    answer, challenge: challenge, credential: credential, algorithm: pending.algorithm, publicKey: pending.publicKey,
                    userID: pending.message.userID, requireUserVerification: false)
            } catch {
                logger.warning("a WebAuthn signing refused: \(error.description)")
                return finish(.success(.notSigned))
            }
            do {
                switch try signatures.finish(pending, assertion: assertion) {
                case .signed(let receipt): finish(.success(signed(receipt)))
                case .notSigned: finish(.success(.notSigned))
                case .cloneSuspected:
                    WebAuthnRequests.warnOfClone(logger, pending.key)
                    finish(.success(.notSigned))
                }
            } catch {
                logger.error("storing a signature failed: \(error)")
                finish(.failure(.internalError))
            }
        }
    }
}
