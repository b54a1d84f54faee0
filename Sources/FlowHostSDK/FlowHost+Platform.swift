import FlowJSON
import FlowHostServiceTypes

/// What flows ask of the device: an LDA check on the client's platform, and
/// a new device key (host custody: the host's keyring; platform custody: the
/// client's keystore). Each completion runs once, later, on the loop thread;
/// a flow checks there that its dialogue is still the one that asked.
extension FlowHost {
    /// How the client's LDA check ended.
    public enum LDACheck: Sendable {
        case passed
        /// Failed, cancelled by the user, timed out, or not answered usefully.
        case failed
        /// The host gave up on it: the dialogue was reset or abandoned.
        case abandoned
    }

    /// Why the platform is asked for an LDA check (`reason` in
    /// `platform/authenticateLDA`; the contract's enum is these values, and
    /// a test holds the two together).
    public enum LDAReason: String, CaseIterable, Sendable {
        case enroll, login
        case stepUp = "step-up"
        case notification
        case dataSigning = "data-signing"
        case ldaToggle = "lda-toggle"
    }

    /// Whether this device's proof of possession can verify its user too: a
    /// WebAuthn device (`keyCustody: "webauthn"`, spec §14), whose assertion
    /// with UV is one touch for both the key and the biometric. A flow that
    /// would ask `platform/authenticateLDA` and a proof asks `device.prove`
    /// with `userVerification: "required"` instead, and takes the LDA check
    /// as passed only when the outcome says `userVerified`.
    public var deviceProofVerifiesUser: Bool { Self.proofVerifiesUser(device: sessionInfo["device"]) }

    /// The same, from `session_info`'s `device` a flow has read already.
    public static func proofVerifiesUser(device: JSON?) -> Bool { device?["keyCustody"]?.stringValue == "webauthn" }

    /// `platform/authenticateLDA`: passed only when the client says the check passed.
    public func authenticateWithLDA(userID: String, type: Int, reason: LDAReason, completion: @escaping (LDACheck) -> Void) {
        request("platform/authenticateLDA", ["userID": .string(userID), "authenticationType": .int(type), "reason": .string(reason.rawValue)]) {
            outcome in
            switch outcome {
            case .success(let result) where result["authenticated"]?.boolValue == true: completion(.passed)
            case .failure(let error) where error.isCancellation: completion(.abandoned)
            default: completion(.failed)
            }
        }
    }

    /// How the client's server-biometric verification ended.
    public enum ServerBiometricCheck: Sendable {
        case passed
        /// The biometric did not match.
        case failed
        /// The user dismissed the capture.
        case cancelled
        /// The client has no server biometric (no IDV service, or it does not
        /// implement the request): the seed's 214, authentication method not supported.
        case unavailable
        /// The host gave up on it: the dialogue was reset or abandoned.
        case abandoned
    }

    /// `platform/verifyServerBiometric {userID, reason}`: seed 000's IDV
    /// server biometric lives outside the host, so the client (or a backend
    /// that relays to the IDV service) verifies it. Passed only on
    /// `{verified: true}`; an error's `data.reason` (`cancelled`, `failed`,
    /// `unavailable`) says why not, and a client that does not know the
    /// method (-32601) has no server biometric.
    public func verifyServerBiometric(userID: String, reason: String, completion: @escaping (ServerBiometricCheck) -> Void) {
        request("platform/verifyServerBiometric", ["userID": .string(userID), "reason": .string(reason)]) { outcome in
            switch outcome {
            case .success(let result) where result["verified"]?.boolValue == true: completion(.passed)
            case .success: completion(.failed)
            case .failure(let error) where error.isCancellation: completion(.abandoned)
            case .failure(let error) where error.code == .methodNotFound: completion(.unavailable)
            case .failure(let error):
                switch error.data?["reason"]?.stringValue {
                case "unavailable": completion(.unavailable)
                case "cancelled": completion(.cancelled)
                default: completion(.failed)
                }
            }
        }
    }

    /// `password.policy`: the `RELID_PASSWORD_POLICY` text a `getPassword`
    /// that asks for a new password carries ("{}", logged, when it cannot be read).
    public func passwordPolicy() -> String {
        do { return try call(Services.PasswordPolicy()).policy } catch {
            log(.error, "reading the password policy failed: \(error.message)")
            return "{}"
        }
    }

    /// The message of a new password refused by the history (164).
    public var reusedPasswordMessage: String {
        text("The new password was used before: do not reuse any of your last 5 passwords.", in: "policy")
    }

    /// `device.createKey`: the key's id, public half and custody, which an
    /// activation step registers with the device.
    public func createDeviceKey(
        userID: String, deviceID: String, completion: @escaping (Result<Services.DeviceCreateKeyOutcome, FlowHostError>) -> Void
    ) {
        call(Services.DeviceCreateKey(userID: userID, deviceID: deviceID), completion: completion)
    }

    /// The user logged in on this host, or the SDK-style refusal of a
    /// method that needs one (-32006).
    public func loggedInUser() throws(FlowHostError) -> String {
        guard let user = session?["userID"]?.stringValue else {
            throw FlowHostError(.notAllowedNow, message: text("No user is logged in on this device", in: "sdk"))
        }
        return user
    }
}
