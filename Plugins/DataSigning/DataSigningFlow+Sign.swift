import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// Checking the request, authenticating, signing, and the outcome event.
extension DataSigningFlow {
    func authenticate(payload: String, level: Int, type: Int, reason: String) throws(FlowHostError) {
        let user = try host.loggedInUser()
        guard Self.supportedPairs.contains([level, type]) else {
            throw FlowHostError.sdk(
                SDKCode.authenticationMethodNotSupported,
                host.text(
                    "Authentication method not supported: authLevel {level} with authenticatorType {type} (supported: 0/0, 1/0, 4/1)", in: "data-signing",
                    ["level": String(level), "type": String(type)]))
        }
        try Self.checkLength(payload, field: "payload", max: Self.maxPayload)
        try Self.checkLength(reason, field: "reason", max: Self.maxReason)
        // A retry after the client dismissed the prompt replaces the old signing (the
        // host has cancelled its dialogue already); nothing of it is signed.
        signing?.dialogue.end(abandoning: true)
        let dialogue = host.beginDialogue()
        signing = Signing(dialogue: dialogue, userID: user, payload: payload, reason: reason, authLevel: level, authenticatorType: type)
        guard level > 0 else { return sign(verifiedBy: "none") }
        dialogue.stepUp(
            // Level 4 is seed 000's IDV server biometric and nothing else; level 1 is LDA, else the password.
            Services.StepupAuthenticate(challengeMode: ChallengeMode.signing, reason: "data-signing", method: level == 4 ? "serverBiometric" : "lda")
        ) { [self] outcome in
            switch outcome {
            case .failure(let error) where error.isCancellation:
                signing = nil  // reset: nothing signed, nothing to say
            case .failure(let error):
                host.log(.error, "stepup.authenticate failed: \(error.message)")
                report(status: SDKCode.serverFailed, message: host.text("The authentication failed on the server side.", in: "data-signing"), error: Self.authenticationFailed)
            case .success(let result):
                authenticated(result)
            }
        }
    }

    /// Characters are Unicode scalars: what a user counts, whatever the encoding.
    static func checkLength(_ text: String, field: String, max: Int) throws(FlowHostError) {
        let count = text.unicodeScalarCount
        guard count >= 1, count <= max else {
            throw FlowHostError.invalidParams(field: field, reason: "1 to \(max) characters (Unicode scalars); this one has \(count)")
        }
    }

    static let authenticationFailed = (code: SDKCode.authenticationFailed, text: MessageKey(context: "data-signing", id: "Authentication failed"))
    static let cancelledByUser = (code: SDKCode.cancelledByUser, text: MessageKey(context: "data-signing", id: "Operation cancelled by user"))
    static let notSupported = (code: SDKCode.authenticationMethodNotSupported, text: MessageKey(context: "data-signing", id: "Authentication method not supported"))

    /// The statuses and the session's end are StepUpOutcome's; the words and errors are the signing's.
    func authenticated(_ outcome: StepUpOutcome) {
        let status = outcome.status
        switch outcome {
        case .authenticated(let verifiedBy):
            sign(verifiedBy: verifiedBy)
        case .exhausted:
            report(status: status, message: host.text("Too many wrong attempts: you are logged off; nothing was signed.", in: "data-signing"), error: Self.authenticationFailed)
        case .expired:
            report(status: status, message: host.text("Your password has expired: you are logged off; nothing was signed.", in: "data-signing"), error: Self.authenticationFailed)
        case .ldaCancelled:
            report(status: status, message: host.text("Local device authentication was cancelled; nothing was signed.", in: "data-signing"), error: Self.cancelledByUser)
        case .cancelled:
            report(status: status, message: host.text("The authentication expired unanswered; nothing was signed.", in: "data-signing"), error: Self.cancelledByUser)
        case .refused:
            report(status: status, message: host.text("This device could not prove who you are.", in: "data-signing"), error: Self.authenticationFailed)
        case .biometricUnavailable:
            report(status: status, message: host.text("No server biometric is available to this client; nothing was signed.", in: "data-signing"), error: Self.notSupported)
        case .biometricCancelled:
            report(status: status, message: host.text("The biometric capture was cancelled; nothing was signed.", in: "data-signing"), error: Self.cancelledByUser)
        case .biometricFailed:
            report(status: status, message: host.text("The server biometric did not match; nothing was signed.", in: "data-signing"), error: Self.authenticationFailed)
        case .unknown:
            report(status: status, message: host.text("The authentication failed on the server side.", in: "data-signing"), error: Self.authenticationFailed)
        }
    }

    func sign(verifiedBy: String) {
        guard let current = signing else { return }
        current.dialogue.call(
            Services.SignaturesSign(
                userID: current.userID, deviceID: deviceID, payload: current.payload, reason: current.reason, authLevel: current.authLevel,
                authenticatorType: Self.authenticatorType(verifiedBy: verifiedBy), verifiedBy: verifiedBy)
        ) { [self] outcome in
            switch outcome {
            case .success(.signed(let id, let signature, let receipt)):
                report(
                    status: SDKCode.success, message: "Success", signed: (id: id, payloadSignature: signature, receipt: receipt), verifiedBy: verifiedBy)
            case .success(.noKey):
                report(status: SDKCode.deviceNotRegistered, message: host.text("This device has no usable key; activate it again.", in: "data-signing"), error: Self.authenticationFailed)
            case .success(.notSigned):
                report(status: SDKCode.success, message: host.text("The device did not sign; nothing was signed.", in: "data-signing"), error: Self.cancelledByUser)
            case .failure(let error) where error.isCancellation:
                signing = nil
            case .failure(let error):
                host.log(.error, "signatures.sign failed: \(error.message)")
                report(status: SDKCode.serverFailed, message: host.text("The signature could not be made.", in: "data-signing"), error: Self.authenticationFailed)
            }
        }
    }

    /// The RDNAAuthenticatorType of what was verified (seed 000's result:
    /// "Authentication type used"): 0 none, 1 the IDV server biometric, 2 the
    /// password, 3 LDA.
    static func authenticatorType(verifiedBy: String) -> Int {
        ["serverBiometric": 1, "password": 2, "lda": 3][verifiedBy] ?? 0
    }

    /// `onAuthenticateUserAndSignData`; the signing is over. `verifiedBy` is
    /// what was verified: none, lda, password or serverBiometric ("none" when
    /// nothing was signed), and `authenticatorType` its RDNAAuthenticatorType
    /// (the seed's name: the type used, not the one asked for).
    func report(
        status: Int, message: String, error: (code: Int, text: MessageKey) = (0, MessageKey(context: "sdk", id: "Success")),
        signed: (id: String, payloadSignature: String, receipt: JSON)? = nil, verifiedBy: String = "none"
    ) {
        guard let current = signing else { return }
        signing = nil
        let used = signed == nil ? "none" : verifiedBy
        let event: JSON = [
            "dataPayload": .string(current.payload), "dataPayloadLength": .int(current.payload.unicodeScalarCount),
            "reason": .string(current.reason), "payloadSignature": .string(signed?.payloadSignature ?? ""),
            "dataSignatureID": .string(signed?.id ?? ""), "authLevel": .int(current.authLevel),
            "authenticatorType": .int(Self.authenticatorType(verifiedBy: used)), "verifiedBy": .string(used),
            "status": ["statusCode": .int(status), "statusMessage": .string(message)],
            "error": ["longErrorCode": .int(error.code), "shortErrorCode": .int(error.code), "errorString": .string(host.text(error.text.id, in: error.text.context))],
        ]
        if let receipt = signed?.receipt { event["receipt"] = receipt }
        host.emit("onAuthenticateUserAndSignData", event)
    }
}
