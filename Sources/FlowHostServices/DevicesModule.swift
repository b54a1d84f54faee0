import FlowHostCore
import FlowHostCredentials
import FlowHostDevices
import FlowHostServiceTypes
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// A device is a key: `device.createKey` makes one at activation,
/// `device.prove` shows, before each login, that this device holds it.
/// With host custody the key is in the host's keyring; with platform
/// custody the client's platform holds it and the host asks it through host
/// requests (`platform/createDeviceKey`, `platform/signDeviceChallenge`).
/// A refusal, a wrong signature or a timeout is a failed proof, never a pass.
enum DevicesModule {
    /// The `reason` of the proof that ends an LDA step-up.
    static let ldaStepUpReason = "step-up-lda"

    static func register(_ devices: DeviceProofs, keyring: DeviceKeyring?, webauthn: WebAuthnSettings?, in engine: HostEngine) {
        // The session and the client reach the name table these services live in: held strongly, none would be freed.
        unowned let hostSession = engine.session
        unowned let client = engine.client
        let logger = engine.logger
        func custody() -> String { client.device["keyCustody"]?.stringValue ?? "host" }

        offerAsync(engine, Services.DeviceCreateKey.self) {
            caller, call, finish throws(FlowHostError) in
            if custody() == "host" {
                guard let keyring else { return finish(.failure(FlowHostError(.internalError, message: "no device folder configured"))) }
                do {
                    let (keyID, publicKey) = try keyring.create()
                    finish(.success(Services.DeviceCreateKeyOutcome(keyID: keyID, publicKey: Base64.encode(publicKey), custody: "host")))
                } catch {
                    logger.error("device key creation failed: \(error)")
                    finish(.failure(.internalError))
                }
                return
            }
            if custody() == "webauthn" {
                return WebAuthnRequests.createCredential(
                    devices, webauthn, userID: call.userID, deviceID: call.deviceID, client: client, caller: caller, logger: logger, finish: finish)
            }
            let request: JSON = [
                "userID": .string(call.userID), "purpose": "activation",
                "algorithms": .array(DeviceKeyAlgorithm.offered.map { .string($0.rawValue) }),
            ]
            client.request("platform/createDeviceKey", request, for: caller) { outcome in
                guard case .success(let answer) = outcome, let keyID = answer["keyID"]?.stringValue, !keyID.isEmpty, keyID.utf8.count <= 128,
                    let key = answer["publicKey"]?.stringValue.flatMap(Base64.decode).flatMap({ platformKey($0, answer["algorithm"]) })
                else {
                    return finish(
                        .failure(
                            FlowHostError(
                                .platformAnswerUnusable,
                                message: "the platform made no usable key (keyID; publicKey: 32-byte Ed25519, or with algorithm ES256 a P-256 point)")))
                }
                finish(.success(Services.DeviceCreateKeyOutcome(keyID: keyID, publicKey: Base64.encode(key), custody: "platform")))
            }
        }

        offerAsync(engine, Services.DeviceProve.self) {
            caller, call, finish throws(FlowHostError) in
            let (userID, deviceID, reason) = (call.userID, call.deviceID, call.reason)
            if let asked = call.userVerification, asked != "required", asked != "preferred" {
                throw FlowHostError.invalidParams(field: "userVerification", reason: "required or preferred")
            }
            let refused: (String) -> Void = { why in
                // A synced credential is a refused kind of authenticator, not a device that failed its proof.
                let status = why == "synced-credential" ? SDKCode.authenticationMethodNotSupported : SDKCode.deviceNotRegistered
                finish(.success(.refused(status: status, reason: why)))
            }
            let provenVerified: (String, String, Bool?) -> Void = { proof, keyID, userVerified in
                // An LDA step-up is the client's check and this proof: the evidence for
                // `session.reauthenticate`, a step the flow takes.
                let token = reason == Self.ldaStepUpReason ? hostSession.issueReauthentication(userID: userID) : nil
                finish(.success(.proven(proof: proof, keyID: keyID, reauthentication: token, userVerified: userVerified)))
            }
            let proven: (String, String) -> Void = { proof, keyID in provenVerified(proof, keyID, nil) }
            if custody() == "host", let keyring {
                // The key is in this host's keyring: the whole proof in one transaction.
                var keyID = ""
                let held: DeviceProofs.Finish?
                do {
                    held = try devices.proveHeld(userID: userID, deviceID: deviceID) { key, publicKey in
                        keyID = key.keyID
                        // A host that does not hold the key (another machine, another
                        // device folder) holds no secret half: the proof fails.
                        do { return try keyring.holdsSecretKey(of: publicKey, keyID: key.keyID) } catch {
                            // A key file others can reach is refused, never used; say which and how to fix it.
                            logger.error("device key refused: \(error)")
                            return false
                        }
                    }
                } catch {
                    logger.error("device proof failed: \(error)")
                    return finish(.failure(.internalError))
                }
                switch held {
                case .proven(let proof): return proven(proof, keyID)
                case .refused(let why): return refused(why)
                case nil: break  // no key held here (none yet, or the platform's): the two steps below
                }
            }
            let start: DeviceProofs.Start
            do { start = try devices.begin(userID: userID, deviceID: deviceID, reason: reason) } catch {
                logger.error("device proof failed: \(error)")
                return finish(.failure(.internalError))
            }
            switch start {
            case .unbound: return finish(.success(.unbound))
            case .refused(let why): return refused(why)
            case .challenge(let nonce, let message, let key):
                let check: ([UInt8]?) -> Void = { signature in
                    do {
                        switch try devices.finish(
                            userID: userID, deviceID: deviceID, nonce: nonce, message: message, signature: signature ?? [])
                        {
                        case .proven(let proof): proven(proof, key.keyID)
                        case .refused(let why): refused(why)
                        }
                    } catch {
                        logger.error("device proof failed: \(error)")
                        finish(.failure(.internalError))
                    }
                }
                if key.custody == "webauthn" {
                    return WebAuthnRequests.getAssertion(
                        devices, webauthn, key: key, nonce: nonce, message: message, userVerification: call.userVerification ?? "preferred",
                        client: client, caller: caller, logger: logger
                    ) { outcome in
                        switch outcome {
                        case .proven(let proof, let userVerified): provenVerified(proof, key.keyID, userVerified ? true : nil)
                        case .refused(let why): refused(why)
                        case .failed: finish(.failure(.internalError))
                        }
                    }
                }
                if key.custody == "host" {
                    // A host that does not hold the key (another machine, another
                    // device folder) has nothing to sign with: the proof fails.
                    do { return check(try keyring?.sign(message, keyID: key.keyID) ?? nil) } catch {
                        // A key file others can reach is refused, never used; say which and how to fix it.
                        logger.error("device key refused: \(error)")
                        return check(nil)
                    }
                }
                let request: JSON = ["keyID": .string(key.keyID), "challenge": .string(Base64.encode(message)), "reason": .string(reason)]
                client.request("platform/signDeviceChallenge", request, for: caller) { outcome in
                    guard case .success(let answer) = outcome else { return check(nil) }
                    check(answer["signature"]?.stringValue.flatMap(Base64.decode))
                }
            }
        }
    }

    /// The public key in a platform's answer, as the host registers it: a
    /// key of the algorithm the answer names (none: Ed25519, as before
    /// there was a choice), one the host offered. ES256 comes as the 65-byte
    /// uncompressed point or an SPKI around it, and is kept as the point.
    /// Whether the key is a usable one is checked where it is registered.
    static func platformKey(_ bytes: [UInt8], _ algorithm: JSON?) -> [UInt8]? {
        switch algorithm?.stringValue ?? (algorithm == nil ? DeviceKeyAlgorithm.ed25519.rawValue : nil) {
        case DeviceKeyAlgorithm.ed25519.rawValue: bytes.count == Ed25519.publicKeyBytes ? bytes : nil
        case DeviceKeyAlgorithm.es256.rawValue: P256.point(fromPlatform: bytes)
        default: nil
        }
    }
}
