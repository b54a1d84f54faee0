import FlowHostCore
import FlowHostCredentials
import FlowHostDevices
import FlowHostServiceTypes
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
        // The session reaches the name table these services live in: held strongly, neither would be freed.
        unowned let hostSession = engine.session
        let passwords = PasswordVerification(credentials)
        offer(engine, Services.CredentialsUserState.self) { _, call in
            try credentials.userState(call.userID, deviceID: call.deviceID).map { state in
                Services.CredentialsUserStateOutcome(
                    userID: state.userID, isActive: state.isActive, registeredOnDevice: state.registeredOnDevice, hasPassword: state.hasPassword,
                    passwordExpired: state.passwordExpired, activationAttemptsLeft: state.activationAttemptsLeft,
                    passwordAttemptsLeft: state.passwordAttemptsLeft, blockedStatus: state.blockedStatus, ldaType: state.ldaType,
                    forgotPasswordEnabled: credentials.settings.forgotPasswordEnabled, verificationKey: state.verificationKey)
            }
        }

        // Only users whose key for this device this host can use are offered
        // (a device that claims another's id learns nothing). One statement,
        // carrying its transaction's COMMIT.
        offer(engine, Services.CredentialsRememberedUsers.self) { _, call in
            Services.CredentialsRememberedUsersOutcome(
                users: try store.read { tx in
                    try tx.lastStatement { try tx.hostHeldKeys(onDevice: call.deviceID) }
                }.filter { keyring?.holds($0.keyID) == true }.map(\.userID))
        }

        offer(engine, Services.ActivationVerify.self) { _, call in
            switch try credentials.verifyActivationCode(call.userID, code: call.code, deviceID: call.deviceID) {
            case .accepted(let grant): .accepted(grant: grant)
            case .wrong(let left): .wrong(attemptsLeft: left)
            case .expired(let left): .expired(attemptsLeft: left)
            case .superseded(let left): .superseded(attemptsLeft: left)
            case .alreadyUsed(let left): .alreadyUsed(attemptsLeft: left)
            case .refused(let refusal): .refused(refusal)
            }
        }

        offer(engine, Services.ActivationResend.self) { _, call in
            Services.ActivationResendOutcome(try credentials.resendActivationCode(call.userID, deviceID: call.deviceID))
        }

        offer(engine, Services.ActivationComplete.self) { caller, call in
            let key = try newKey(keyID: call.keyID, publicKey: call.publicKey, custody: call.custody, prefix: "")
            let outcome = try credentials.completeActivation(
                call.userID, deviceID: call.deviceID, deviceName: call.deviceName, grant: call.grant, password: call.password,
                ldaType: call.ldaType, key: key, workflow: call.workflow)
            switch outcome {
            case .completed(let session):
                hostSession.begin(
                    userID: call.userID, sessionID: session.sessionID, feedPosition: session.feedPosition,
                    factors: [call.ldaType == nil ? "password" : "lda"], ldaType: call.ldaType, openedBy: caller)
                return .completed(sessionID: session.sessionID)
            case .grantInvalid: return .grantInvalid
            case .refused(let refusal): return .refused(refusal)
            }
        }

        offer(engine, Services.PasswordPolicy.self) { _, _ in Services.PasswordPolicyOutcome(policy: credentials.settings.policy.sdkJSONText()) }

        offer(engine, Services.PasswordCheck.self) { _, call in
            switch try credentials.checkNewPassword(call.userID, call.password) {
            case .acceptable: .acceptable
            case .violatesPolicy(let found): .policy(problems: found.map(\.text), violations: .array(found.map(\.json)))
            case .reused: .reused
            }
        }

        offer(engine, Services.PasswordStepUp.self) {
            _, call in
            switch try passwords.stepUp(call.userID, call.password, deviceID: call.deviceID, proof: call.proof) {
            case .accepted(expired: true):
                // 110: the SDK logs the user off; the host does it, whoever asked.
                hostSession.end(afterStepOf: call.userID, reason: "step-up-failed")
                return .accepted(expired: true, reauthentication: nil)
            case .accepted(expired: false):
                // The evidence for `session.reauthenticate`; the flow takes that step.
                return .accepted(expired: false, reauthentication: hostSession.issueReauthentication(userID: call.userID))
            case .wrong(let left): return .wrong(attemptsLeft: left)
            case .refused(let refusal):
                // 153 (the last attempt spent, the user blocked): the session ends as after 110.
                if refusal == .blocked(.passwordAttempts) { hostSession.end(afterStepOf: call.userID, reason: "step-up-failed") }
                return .refused(refusal)
            }
        }

        offer(engine, Services.PasswordVerify.self) { _, call in
            switch try passwords.verify(call.userID, call.password, deviceID: call.deviceID) {
            case .accepted(let expired): .accepted(expired: expired)
            case .wrong(let left): .wrong(attemptsLeft: left)
            case .refused(let refusal): .refused(refusal)
            }
        }

        offer(engine, Services.PasswordLogin.self) { caller, call in
            let possession: DevicePossession? =
                if let proof = call.proof { .proof(proof) } else if let keyID = call.bindKeyID {
                    .bind(try newKey(keyID: keyID, publicKey: call.bindPublicKey, custody: call.bindCustody, prefix: "bind"))
                } else { nil }
            let (outcome, session) = try passwords.logIn(
                call.userID, call.password, deviceID: call.deviceID, workflow: call.workflow, possession: possession)
            if let session {
                hostSession.begin(
                    userID: call.userID, sessionID: session.sessionID, feedPosition: session.feedPosition, factors: ["password"], ldaType: nil,
                    openedBy: caller)
            }
            switch outcome {
            case .accepted(let expired): return .accepted(expired: expired, sessionID: session?.sessionID)
            case .wrong(let left): return .wrong(attemptsLeft: left)
            case .refused(let refusal): return .refused(refusal)
            }
        }

        offer(engine, Services.PasswordUpdate.self) { _, call in
            switch try passwords.update(call.userID, current: call.currentPassword, new: call.newPassword, deviceID: call.deviceID) {
            case .updated: .updated
            case .wrongCurrent(let left): .wrongCurrent(attemptsLeft: left)
            case .refused(let refusal): .refused(refusal)
            case .rejected(.violatesPolicy(let found)): .policy(problems: found.map(\.text), violations: .array(found.map(\.json)))
            case .rejected(.reused): .reused
            case .rejected(.acceptable): throw FlowHostError(.internalError, message: "a new password rejected as acceptable")
            }
        }
    }

    /// A new device key from a flow's params (`keyID`, `publicKey` in base64,
    /// `custody`, each named with `prefix` in errors). A key the params name
    /// in part is refused by its first missing member.
    static func newKey(keyID: String, publicKey: String?, custody: String?, prefix: String) throws -> NewDeviceKey {
        func name(_ field: String) -> String { prefix.isEmpty ? field : prefix + field.prefix(1).uppercased() + field.dropFirst() }
        guard let publicKey else { throw FlowHostError.invalidParams(field: name("publicKey"), reason: "required string") }
        guard let custody else { throw FlowHostError.invalidParams(field: name("custody"), reason: "required string") }
        guard let key = Base64.decode(publicKey), let algorithm = DeviceKeyAlgorithm(publicKey: key) else {
            throw FlowHostError.invalidParams(
                field: name("publicKey"), reason: "a 32-byte Ed25519 public key, or a 65-byte uncompressed P-256 point, in base64")
        }
        switch algorithm {
        case .ed25519:
            guard Ed25519.isStrongPublicKey(key) else {
                throw FlowHostError.invalidParams(
                    field: name("publicKey"), reason: "not a usable Ed25519 public key (small order, or not in the main subgroup)")
            }
        case .es256:
            let valid: Bool
            do { valid = try P256.isValidPublicKey(key) } catch {
                throw FlowHostError(.internalError, message: "P-256 keys need OpenSSL's libcrypto: \(error)")
            }
            guard valid else { throw FlowHostError.invalidParams(field: name("publicKey"), reason: "not a P-256 point on the curve") }
        }
        // A webauthn key is registered only as a credential the host checked itself (`DeviceProofs.register`).
        guard ["host", "platform", "webauthn"].contains(custody) else {
            throw FlowHostError.invalidParams(field: name("custody"), reason: "host, platform or webauthn")
        }
        // The keyring makes and signs with Ed25519 keys only.
        guard custody != "host" || algorithm == .ed25519 else {
            throw FlowHostError.invalidParams(field: name("custody"), reason: "a host-held key is Ed25519")
        }
        guard !keyID.isEmpty, keyID.utf8.count <= 128 else { throw FlowHostError.invalidParams(field: name("keyID"), reason: "1 to 128 bytes") }
        return NewDeviceKey(keyID: keyID, publicKey: key, custody: custody)
    }
}
