import FlowHostCore
import FlowHostCredentials
import FlowHostDevices
import FlowHostStore
import FlowHostVocabulary
import FlowJSON

/// Users, codes and passwords, offered to flows: `credentials.*`,
/// `activation.*`, `password.*`. A successful login or activation begins
/// the host's session. Outcomes are closed sets named by `outcome`; a
/// refusal carries the SDK `status` for `getUser`. Secrets pass through in
/// memory only.
enum CredentialsModule {
    static func register(
        _ credentials: CredentialService, store: any FlowStore, keyring: DeviceKeyring?, in engine: HostEngine
    ) {
        // The engine owns the services registered here: capturing it strongly would keep it alive forever.
        unowned let engine = engine
        offer(engine, "credentials.userState", [string("userID", userID: true), string("deviceID")]) { _, p in
            guard let state = try credentials.userState(try p.string("userID"), deviceID: try p.string("deviceID")) else { return .null }
            let json: JSON = [
                "userID": .string(state.userID), "isActive": .bool(state.isActive),
                "registeredOnDevice": .bool(state.registeredOnDevice), "hasPassword": .bool(state.hasPassword),
                "passwordExpired": .bool(state.passwordExpired), "activationAttemptsLeft": .int(state.activationAttemptsLeft),
                "passwordAttemptsLeft": .int(state.passwordAttemptsLeft),
            ]
            if let blocked = state.blockedStatus { json["blockedStatus"] = .int(blocked) }
            if let lda = state.ldaType { json["ldaType"] = .int(lda) }
            if let key = state.verificationKey { json["verificationKey"] = .string(key) }
            return json
        }

        offer(engine, "credentials.rememberedUsers", [string("deviceID")]) { _, p in
            let deviceID = try p.string("deviceID")
            let users = try DevicesModule.provable(
                try credentials.rememberedUsers(deviceID: deviceID), deviceID: deviceID, store: store, keyring: keyring)
            return ["users": .array(users.map(JSON.string))]
        }

        offer(engine, "activation.verify", [string("userID", userID: true), string("code"), string("deviceID")]) { _, p in
            switch try credentials.verifyActivationCode(try p.string("userID"), code: try p.string("code"), deviceID: try p.string("deviceID")) {
            case .accepted(let grant): return ["outcome": "accepted", "grant": .string(grant)]
            case .wrong(let left): return ["outcome": "wrong", "attemptsLeft": .int(left)]
            case .expired(let left): return ["outcome": "expired", "attemptsLeft": .int(left)]
            case .superseded(let left): return ["outcome": "superseded", "attemptsLeft": .int(left)]
            case .alreadyUsed(let left): return ["outcome": "alreadyUsed", "attemptsLeft": .int(left)]
            case .refused(let refusal): return refused(refusal)
            }
        }

        offer(engine, "activation.resend", [string("userID", userID: true), string("deviceID")]) { _, p in
            sent(try credentials.resendActivationCode(try p.string("userID"), deviceID: try p.string("deviceID")))
        }

        offer(
            engine, "activation.complete",
            [
                string("userID", userID: true), string("deviceID"), string("deviceName"), string("grant"), string("workflow"),
                string("password", required: false), integer("ldaType", required: false), string("keyID"), string("publicKey"),
                string("custody"),
            ]
        ) { caller, p in
            let userID = try p.string("userID")
            let ldaType = try p.optionalInt("ldaType")
            let outcome = try credentials.completeActivation(
                userID, deviceID: try p.string("deviceID"), deviceName: try p.string("deviceName"), grant: try p.string("grant"),
                password: try p.optionalString("password"), ldaType: ldaType, key: try newKey(p, prefix: ""), workflow: try p.string("workflow"))
            switch outcome {
            case .completed(let sessionID):
                engine.session.begin(userID: userID, sessionID: sessionID, factors: [ldaType == nil ? "password" : "lda"], ldaType: ldaType, openedBy: caller)
                return ["outcome": "completed", "sessionID": .string(sessionID)]
            case .grantInvalid: return ["outcome": "grantInvalid"]
            case .refused(let refusal): return refused(refusal)
            }
        }

        offer(engine, "password.policy", []) { _, _ in ["policy": .string(credentials.settings.policy.sdkJSONText())] }

        offer(engine, "password.check", [string("userID", userID: true), string("password")]) { _, p in
            check(try credentials.checkNewPassword(try p.string("userID"), try p.string("password")))
        }

        offer(engine, Services.PasswordStepUp.self, [string("userID", userID: true), string("password"), string("deviceID"), string("proof")]) {
            _, call in
            switch try credentials.stepUpPassword(call.userID, call.password, deviceID: call.deviceID, proof: call.proof) {
            case .accepted(let expired):
                // The evidence for `session.reauthenticate`; the flow takes that step.
                return .accepted(expired: expired, reauthentication: expired ? nil : engine.session.issueReauthentication(userID: call.userID))
            case .wrong(let left): return .wrong(attemptsLeft: left)
            case .refused(let refusal): return .refused(status: refusal.status, reason: refusal.name)
            }
        }

        offer(engine, "password.verify", [string("userID", userID: true), string("password"), string("deviceID")]) { _, p in
            password(try credentials.verifyPassword(try p.string("userID"), try p.string("password"), deviceID: try p.string("deviceID")))
        }

        offer(
            engine, "password.login",
            [
                string("userID", userID: true), string("password"), string("deviceID"), string("workflow"), string("proof", required: false),
                string("bindKeyID", required: false), string("bindPublicKey", required: false), string("bindCustody", required: false),
            ]
        ) { caller, p in
            let userID = try p.string("userID")
            let possession: DevicePossession? =
                if let proof = try p.optionalString("proof") { .proof(proof) } else if try p.optionalString("bindKeyID") != nil {
                    .bind(try newKey(p, prefix: "bind"))
                } else { nil }
            let (outcome, sessionID) = try credentials.logIn(
                userID, try p.string("password"), deviceID: try p.string("deviceID"), workflow: try p.string("workflow"), possession: possession)
            let result = password(outcome)
            if let sessionID {
                engine.session.begin(userID: userID, sessionID: sessionID, factors: ["password"], ldaType: nil, openedBy: caller)
                result["sessionID"] = .string(sessionID)
            }
            return result
        }

        offer(
            engine, "password.update",
            [string("userID", userID: true), string("currentPassword"), string("newPassword"), string("deviceID")]
        ) { _, p in
            let outcome = try credentials.updatePassword(
                try p.string("userID"), current: try p.string("currentPassword"), new: try p.string("newPassword"),
                deviceID: try p.string("deviceID"))
            switch outcome {
            case .updated: return ["outcome": "updated"]
            case .wrongCurrent(let left): return ["outcome": "wrongCurrent", "attemptsLeft": .int(left)]
            case .refused(let refusal): return refused(refusal)
            case .rejected(let reason): return check(reason)
            }
        }
    }

    /// A new device key from a flow's params (`keyID`, `publicKey` in base64,
    /// `custody`, each with `prefix`).
    static func newKey(_ p: ServiceParams, prefix: String) throws -> NewDeviceKey {
        func name(_ field: String) -> String { prefix.isEmpty ? field : prefix + field.prefix(1).uppercased() + field.dropFirst() }
        guard let key = Base64.decode(try p.string(name("publicKey"))), key.count == Ed25519.publicKeyBytes else {
            throw FlowHostError.invalidParams(field: name("publicKey"), reason: "a 32-byte Ed25519 public key in base64")
        }
        guard Ed25519.isStrongPublicKey(key) else {
            throw FlowHostError.invalidParams(field: name("publicKey"), reason: "not a usable Ed25519 public key (small order, or not in the main subgroup)")
        }
        let custody = try p.string(name("custody"))
        guard custody == "host" || custody == "platform" else { throw FlowHostError.invalidParams(field: name("custody"), reason: "host or platform") }
        let keyID = try p.string(name("keyID"))
        guard !keyID.isEmpty, keyID.utf8.count <= 128 else { throw FlowHostError.invalidParams(field: name("keyID"), reason: "1 to 128 bytes") }
        return NewDeviceKey(keyID: keyID, publicKey: key, custody: custody)
    }

    /// A code sent (or not) to the user's delivery channel.
    static func sent(_ outcome: ResendOutcome) -> JSON {
        switch outcome {
        case .sent(let key, let left): ["outcome": "sent", "verificationKey": .string(key), "attemptsLeft": .int(left)]
        case .tooSoon(let after): ["outcome": "tooSoon", "retryAfterSeconds": .int(Int(after))]
        case .refused(let refusal): refused(refusal)
        }
    }

    static func refused(_ refusal: Refusal) -> JSON {
        ["outcome": "refused", "status": .int(refusal.status), "reason": .string(refusal.name)]
    }

    private static func password(_ outcome: PasswordOutcome) -> JSON {
        switch outcome {
        case .accepted(let expired): ["outcome": "accepted", "expired": .bool(expired)]
        case .wrong(let left): ["outcome": "wrong", "attemptsLeft": .int(left)]
        case .refused(let refusal): refused(refusal)
        }
    }

    static func check(_ check: NewPasswordCheck) -> JSON {
        switch check {
        case .acceptable: ["outcome": "acceptable"]
        case .violatesPolicy(let problems): ["outcome": "policy", "problems": .array(problems.map(JSON.string))]
        case .reused: ["outcome": "reused"]
        }
    }
}
