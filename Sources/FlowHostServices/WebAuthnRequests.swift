import FlowHostCore
import FlowHostDevices
import FlowHostPOSIX
import FlowHostServiceTypes
import FlowHostVocabulary
import FlowJSON
import Logging

/// The host requests of a WebAuthn device (spec §7, §14):
/// `platform/createCredential` where another device would be asked for a
/// new key, `platform/getAssertion` where it would be asked to sign. Their
/// fields are WebAuthn's JSON encoding (base64url without padding), so a
/// browser passes `navigator.credentials`' results through unchanged.
enum WebAuthnRequests {
    /// ES256 first (every authenticator makes it), EdDSA beside it.
    static func pubKeyCredParams() -> JSON {
        [["type": "public-key", "alg": .int(COSEKey.es256)], ["type": "public-key", "alg": .int(COSEKey.edDSA)]]
    }

    /// `device.createKey` for a WebAuthn device: a new credential, checked,
    /// held for the activation that registers it.
    static func createCredential(
        _ devices: DeviceProofs, _ settings: WebAuthnSettings?, userID: String, deviceID: String, client: ConnectedClient, caller: LoadedPlugin,
        logger: Logger, finish: @escaping (Result<Services.DeviceCreateKeyOutcome, FlowHostError>) -> Void
    ) {
        guard let settings else {
            logger.error("a WebAuthn device needs the config section webauthn (rpID, origins)")
            return finish(.failure(FlowHostError(.platformAnswerUnusable, message: "this host has no webauthn configuration", data: ["reason": "not-configured"])))
        }
        let relyingParty = WebAuthnRelyingParty(settings)
        let challenge = SecureRandom.bytes(32)
        let request: JSON = [
            "challenge": .string(Base64.encodeURLSafe(challenge)),
            "rp": ["id": .string(settings.rpID), "name": .string(settings.rpID)],
            "user": [
                "id": .string(Base64.encodeURLSafe(WebAuthnRelyingParty.userHandle(userID))), "name": .string(userID),
                "displayName": .string(userID),
            ],
            "pubKeyCredParams": pubKeyCredParams(),
            "authenticatorSelection": ["residentKey": "discouraged", "requireResidentKey": false, "userVerification": "preferred"],
            // The statement is not trusted (no metadata service): none asks for none.
            "attestation": "none",
        ]
        client.request("platform/createCredential", request, for: caller) { outcome in
            guard case .success(let answer) = outcome else {
                return finish(.failure(FlowHostError(.platformAnswerUnusable, message: "the platform made no credential", data: ["reason": "no-answer"])))
            }
            let registration: WebAuthnRelyingParty.Registration
            do throws(WebAuthnError) { registration = try relyingParty.register(answer, challenge: challenge, requireUserVerification: false) } catch {
                logger.warning("a WebAuthn credential refused: \(error.description)")
                return finish(.failure(FlowHostError(.platformAnswerUnusable, message: "the credential is refused: \(error.description)", data: ["reason": .string(error.reason)])))
            }
            do {
                guard let keyID = try devices.holdNewCredential(userID: userID, deviceID: deviceID, registration) else {
                    return finish(
                        .failure(FlowHostError(.platformAnswerUnusable, message: "the credential is registered already", data: ["reason": "credential-in-use"])))
                }
                finish(.success(Services.DeviceCreateKeyOutcome(keyID: keyID, publicKey: Base64.encode(registration.publicKey), custody: "webauthn")))
            } catch {
                logger.error("holding a new WebAuthn credential failed: \(error)")
                finish(.failure(.internalError))
            }
        }
    }

    enum Proof {
        case proven(proof: String, userVerified: Bool)
        case refused(String)
        case failed
    }

    /// `device.prove` for a WebAuthn device: the challenge from
    /// `DeviceProofs.begin` goes out as SHA-256 of its message.
    static func getAssertion(
        _ devices: DeviceProofs, _ settings: WebAuthnSettings?, key: DeviceKeyRecord, nonce: [UInt8], message: [UInt8], userVerification: String,
        client: ConnectedClient, caller: LoadedPlugin, logger: Logger, completion: @escaping (Proof) -> Void
    ) {
        guard let settings, let credential = key.webauthn else {
            logger.error("a WebAuthn device's proof needs the config section webauthn (rpID, origins)")
            return completion(.refused("not-configured"))
        }
        let required = userVerification == "required"
        let request = assertionRequest(settings, credential, challenge: WebAuthnSignedData.challenge(for: message), userVerification: userVerification)
        client.request("platform/getAssertion", request, for: caller) { outcome in
            let answer: JSON? = if case .success(let answer) = outcome { answer } else { nil }
            do {
                let result = try devices.finishWebAuthn(
                    userID: key.userID, deviceID: key.deviceID, nonce: nonce, message: message, answer: answer,
                    relyingParty: WebAuthnRelyingParty(settings), requireUserVerification: required)
                if result.cloneSuspected { warnOfClone(logger, key) }
                switch result.finish {
                case .proven(let proof): completion(.proven(proof: proof, userVerified: result.userVerified))
                case .refused(let why): completion(.refused(why))
                }
            } catch {
                logger.error("device proof failed: \(error)")
                completion(.failed)
            }
        }
    }

    /// `platform/getAssertion`'s params for `credential`.
    static func assertionRequest(_ settings: WebAuthnSettings, _ credential: WebAuthnCredential, challenge: [UInt8], userVerification: String) -> JSON {
        [
            "challenge": .string(Base64.encodeURLSafe(challenge)), "rpId": .string(settings.rpID),
            "allowCredentials": [["type": "public-key", "id": .string(Base64.encodeURLSafe(credential.credentialID))]],
            "userVerification": .string(userVerification),
        ]
    }

    static func warnOfClone(_ logger: Logger, _ key: DeviceKeyRecord) {
        logger.warning(
            "possible clone of a WebAuthn credential: its signature counter did not go up; the credential is revoked",
            metadata: ["user": "\(key.userID)", "device": "\(key.deviceID)", "keyID": "\(key.keyID)"])
    }
}
