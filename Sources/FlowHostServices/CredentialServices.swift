import FlowHostCore
import FlowHostCredentials
import FlowHostStore
import FlowJSON
import JSONRPC

/// Offers the credential service to every flow through the host's service
/// registry. Names and shapes are listed in Protocol/spec.md ("Services").
/// Secrets (passwords, codes, grants) pass through in memory only; none is
/// logged. Every outcome is one of a closed set, named by `outcome`; a
/// refusal carries the SDK `status` the client is to get.
public enum CredentialServices {
    public static func register(_ credentials: CredentialService, in engine: HostEngine) {
        func offer(_ name: String, _ body: @escaping (ServiceParams) throws -> JSON?) {
            engine.registerService(name) { params throws(RPCError) in
                do {
                    return try body(ServiceParams(json: params))
                } catch let error as RPCError {
                    throw error
                } catch let error as StoreError where error == .notFound {
                    throw RPCError(code: -32010, message: "unknown user", data: nil)
                } catch {
                    // Store internals stay in the log; the caller learns only that it failed.
                    engine.logger.error("service \(name) failed: \(error)")
                    throw RPCError.internalError
                }
            }
        }

        offer("credentials.userState") { p in
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

        offer("credentials.rememberedUsers") { p in
            ["users": .array(try credentials.rememberedUsers(deviceID: try p.string("deviceID")).map(JSON.string))]
        }

        offer("activation.verify") { p in
            switch try credentials.verifyActivationCode(try p.string("userID"), code: try p.string("code"), deviceID: try p.string("deviceID")) {
            case .accepted(let grant): return ["outcome": "accepted", "grant": .string(grant)]
            case .wrong(let left): return ["outcome": "wrong", "attemptsLeft": .int(left)]
            case .expired(let left): return ["outcome": "expired", "attemptsLeft": .int(left)]
            case .superseded(let left): return ["outcome": "superseded", "attemptsLeft": .int(left)]
            case .alreadyUsed(let left): return ["outcome": "alreadyUsed", "attemptsLeft": .int(left)]
            case .refused(let refusal): return refused(refusal)
            }
        }

        offer("activation.resend") { p in
            switch try credentials.resendActivationCode(try p.string("userID"), deviceID: try p.string("deviceID")) {
            case .sent(let key, let left): return ["outcome": "sent", "verificationKey": .string(key), "attemptsLeft": .int(left)]
            case .tooSoon(let after): return ["outcome": "tooSoon", "retryAfterSeconds": .int(Int(after))]
            case .refused(let refusal): return refused(refusal)
            }
        }

        offer("password.policy") { _ in ["policy": .string(credentials.settings.policy.sdkJSONText())] }

        offer("password.check") { p in
            check(try credentials.checkNewPassword(try p.string("userID"), try p.string("password")))
        }

        offer("password.verify") { p in
            password(try credentials.verifyPassword(try p.string("userID"), try p.string("password"), deviceID: try p.string("deviceID")))
        }

        offer("password.login") { p in
            let (outcome, sessionID) = try credentials.logIn(
                try p.string("userID"), try p.string("password"), deviceID: try p.string("deviceID"), workflow: try p.string("workflow"))
            let result = password(outcome)
            if let sessionID { result["sessionID"] = .string(sessionID) }
            return result
        }

        offer("password.update") { p in
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

        offer("activation.complete") { p in
            let outcome = try credentials.completeActivation(
                try p.string("userID"), deviceID: try p.string("deviceID"), deviceName: try p.string("deviceName"),
                grant: try p.string("grant"), password: try p.optionalString("password"), ldaType: try p.optionalInt("ldaType"),
                workflow: try p.string("workflow"))
            switch outcome {
            case .completed(let sessionID): return ["outcome": "completed", "sessionID": .string(sessionID)]
            case .grantInvalid: return ["outcome": "grantInvalid"]
            case .refused(let refusal): return refused(refusal)
            }
        }

        offer("session.open") { p in
            switch try credentials.openSession(try p.string("userID"), deviceID: try p.string("deviceID"), workflow: try p.string("workflow")) {
            case .opened(let sessionID): return ["outcome": "opened", "sessionID": .string(sessionID)]
            case .refused(let refusal): return refused(refusal)
            }
        }

        offer("session.close") { p in
            try credentials.endSession(try p.string("sessionID"), reason: try p.optionalString("reason").map(Self.reasonName) ?? "logoff")
            return .object()
        }

        offer("audit.record") { p in
            try credentials.record(
                userID: try p.optionalString("userID"), deviceID: try p.optionalString("deviceID"), action: try p.string("action"),
                outcome: try p.string("outcome"))
            return .object()
        }
    }

    private static func refused(_ refusal: Refusal) -> JSON {
        ["outcome": "refused", "status": .int(refusal.status), "reason": .string(refusal.name)]
    }

    private static func password(_ outcome: PasswordOutcome) -> JSON {
        switch outcome {
        case .accepted(let expired): ["outcome": "accepted", "expired": .bool(expired)]
        case .wrong(let left): ["outcome": "wrong", "attemptsLeft": .int(left)]
        case .refused(let refusal): refused(refusal)
        }
    }

    private static func check(_ check: NewPasswordCheck) -> JSON {
        switch check {
        case .acceptable: ["outcome": "acceptable"]
        case .violatesPolicy(let problems): ["outcome": "policy", "problems": .array(problems.map(JSON.string))]
        case .reused: ["outcome": "reused"]
        }
    }

    /// Session end reasons a flow may give: short names only.
    private static func reasonName(_ text: String) -> String {
        ["logoff", "host-exit", "step-up-failed", "expired"].contains(text) ? text : "other"
    }
}
