import FlowJSON

/// The REL-ID SDK's event payload parts: `challengeResponse` and `error`.
enum SDKPayload {
    static let success = 100

    /// A base event: `{challengeResponse: {status, session, additionalInfo, challengeInfo}, error}` plus `fields`.
    static func event(
        status: Int = success, message: String = "Success", sessionType: Int = 0, sessionID: String = "",
        workflow: String = "NA", challengeInfo: [(String, String)] = [], fields: KeyValuePairs<String, JSON> = [:]
    ) -> JSON {
        let event = JSON.object()
        for (key, value) in fields { event[key] = value }
        event["challengeResponse"] = [
            "status": ["statusCode": .int(status), "statusMessage": .string(message)],
            "session": ["sessionType": .int(sessionType), "sessionID": .string(sessionID)],
            "additionalInfo": ["currentWorkFlow": .string(workflow)],
            "challengeInfo": .array(challengeInfo.map { ["key": .string($0.0), "value": .string($0.1)] }),
        ]
        event["error"] = ["longErrorCode": 0, "shortErrorCode": 0, "errorString": "Success"]
        return event
    }
}

/// `additionalInfo.currentWorkFlow` values.
enum Workflow {
    static let activation = "FirstTimeUserActivation"
    static let login = "NormalLogin"
}

/// `challengeMode` values (RDNAChallengeOpMode).
enum ChallengeMode {
    static let verify = 0
    static let set = 1
    static let updateOnExpiry = 4
}
