import FlowHostVocabulary
import FlowJSON

/// The REL-ID SDK's event payload parts: `response` (the iOS SDK's
/// `RDNAChallengeResponse`) and `error`,
/// shared by every Swift flow (a C flow builds the same shapes, documented
/// in Protocol/spec.md and the `sdk-event-base` schema).
public enum SDKPayload {
    /// The SDK's `error` part when nothing went wrong (a new object each time: JSON values are shared references).
    public static var noError: JSON { ["longErrorCode": .int(SDKCode.noError), "shortErrorCode": .int(SDKCode.noError), "errorString": "Success"] }

    /// A base event: `{response: {status, sessionInfo, additionalInfo, info}, error}` plus `fields`,
    /// named as the seeds' iOS handlers read them (`response.sessionInfo.sessionID`, `response.info`).
    public static func event(
        status: Int = SDKCode.success, message: String = "Success", sessionType: Int = 0, sessionID: String = "",
        workflow: String = "NA", challengeInfo: [(String, String)] = [], fields: KeyValuePairs<String, JSON> = [:]
    ) -> JSON {
        let event = JSON.object()
        for (key, value) in fields { event[key] = value }
        event["response"] = [
            "status": ["statusCode": .int(status), "statusMessage": .string(message)],
            "sessionInfo": ["sessionType": .int(sessionType), "sessionID": .string(sessionID)],
            "additionalInfo": ["currentWorkFlow": .string(workflow)],
            "info": .array(challengeInfo.map { ["key": .string($0.0), "value": .string($0.1)] }),
        ]
        event["error"] = noError
        return event
    }
}

extension SDKPayload {
    /// The SDK's server-call envelope (`onUpdateNotification`,
    /// `onGetNotificationsHistory`): `{errCode, error, eMethId, pArgs:
    /// {service_details, response: {ResponseData, ResponseDataLen, StatusMsg,
    /// StatusCode, CredOpMode}, pxyDetails}}`, plus the SDK's `status`.
    public static func serverCall(
        statusCode: Int = SDKCode.success, message: String = "Success", responseData: JSON = .object(), errorCode: Int = SDKCode.noError,
        errorString: String = "Success", method: Int = 0
    ) -> JSON {
        let data = responseData.serialized()
        return [
            "errCode": .int(errorCode),
            "error": ["longErrorCode": .int(errorCode), "shortErrorCode": .int(errorCode), "errorString": .string(errorString)],
            "eMethId": .int(method),
            "status": ["statusCode": .int(statusCode), "statusMessage": .string(message)],
            "pArgs": [
                "service_details": .object(),
                "response": [
                    "ResponseData": responseData, "ResponseDataLen": .int(data.utf8.count), "StatusMsg": .string(message),
                    "StatusCode": .int(statusCode), "CredOpMode": -1,
                ],
                "pxyDetails": [
                    "isStarted": 0, "isLocalhostOnly": 0, "isAutoStarted": 0, "isPrivacyEnabled": 0, "portType": 0, "port": 0,
                ],
            ],
        ]
    }
}

extension SDKPayload {
    /// A status object as the iOS SDK hands it to `onGetNotifications`:
    /// `{errCode, error, eMethId, status {statusCode, statusMessage}, <member>: data}`
    /// (seed 004 reads `status.notificationResponse.notifications`).
    public static func status(member: String, _ data: JSON, statusCode: Int = SDKCode.success, message: String = "Success") -> JSON {
        let status: JSON = [
            "errCode": 0, "error": noError, "eMethId": 0,
            "status": ["statusCode": .int(statusCode), "statusMessage": .string(message)],
        ]
        status[member] = data
        return status
    }
}

/// `additionalInfo.currentWorkFlow` values.
public enum Workflow {
    public static let activation = "FirstTimeUserActivation"
    public static let login = "NormalLogin"
    /// `forgotPassword`: the code, the new password or LDA, and its login.
    public static let forgotCredentials = "ForgotCredentials"
}

/// `challengeMode` values (RDNAChallengeOpMode), and FlowHost's own.
public enum ChallengeMode {
    public static let verify = 0
    public static let set = 1
    /// A logged-in user changing a password they know (RDNA_OP_UPDATE_CREDENTIALS).
    public static let updateCredentials = 2
    public static let updateOnExpiry = 4
    public static let stepUp = 3
    public static let enableLDAVerify = 5
    public static let setAfterLDADisable = 14
    public static let disableLDAVerify = 15
    public static let enableLDAConsent = 16
    public static let signing = 12
    /// FlowHost's own, not the SDK's: the step-up of a flow that is not
    /// built in (`FlowHost.stepUp(reason:)` asks with it; the host refuses
    /// any other mode from such a flow).
    public static let flowStepUp = FlowHostChallengeMode.flowStepUp
}
