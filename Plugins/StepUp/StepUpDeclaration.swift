import FlowHostSDK

extension StepUpFlow {
    static var declaration: FlowDeclaration {
        FlowDeclaration(
            name: "step-up", version: "1.4.0",
            methods: [
                FlowMethod(
                    "getNotifications", summary: "The logged-in user's active notifications; onGetNotifications follows.",
                    params: [
                        FlowParam("recordCount", .integer, required: false, description: "0: all."),
                        FlowParam("enterpriseID", .string, required: false), FlowParam("startIndex", .integer, required: false, description: "1-based."),
                        FlowParam("startDate", .string, required: false), FlowParam("endDate", .string, required: false),
                    ]),
                FlowMethod(
                    "getNotificationHistory", summary: "The user's notifications in any state; onGetNotificationsHistory follows.",
                    params: [
                        FlowParam("recordCount", .integer, required: false), FlowParam("enterpriseID", .string, required: false),
                        FlowParam("startIndex", .integer, required: false), FlowParam("startDate", .string, required: false),
                        FlowParam("endDate", .string, required: false), FlowParam("notificationStatus", .string, required: false),
                        FlowParam("actionPerformed", .string, required: false), FlowParam("keywordSearch", .string, required: false),
                        FlowParam("deviceID", .string, required: false),
                    ]),
                FlowMethod(
                    "updateNotification",
                    summary: "Answers a notification; its action's authlevel may ask for step-up first. onUpdateNotification follows.",
                    params: [
                        FlowParam("notificationID", .string),
                        FlowParam("response", .string, description: "The chosen action: one of the notification's actions[].action values."),
                    ], startsDialogue: true),
                FlowMethod(
                    "getRegisteredDeviceDetails", summary: "The logged-in user's devices; onGetRegistredDeviceDetails follows (101 for another user's id).",
                    params: [FlowParam("userID", .string, format: .userID)]),
                FlowMethod(
                    "updateDeviceDetails",
                    summary: "Renames (status Update) or deletes (status Delete, after step-up) one of the logged-in user's devices; onUpdateDeviceDetails follows.",
                    params: [
                        FlowParam("userID", .string, format: .userID),
                        FlowParam("devicesJson", .string, description: "The SDK's JSON text {device: [...]}: exactly one device with status Update (and its new devName) or Delete."),
                    ], startsDialogue: true),
                FlowMethod(
                    "setDeviceToken",
                    summary: "Records the logged-in device's push token (FCM or APNs), replacing the one it had; the result is null and no event follows (the SDK's call is void).",
                    params: [
                        FlowParam(
                            "token", .string,
                            description: "The token as the platform gave it: 16 to 4096 ASCII letters, digits and - _ : . + / = (else -32602 naming token).",
                            secret: true)
                    ]),
                SDKAnswers.setPassword,
            ],
            events: [
                FlowEvent("onGetNotifications", summary: "The active notifications, as status.notificationResponse {notifications, start, count, total}."),
                FlowEvent("onGetNotificationsHistory", summary: "The notification history, in the SDK's server-call envelope."),
                FlowEvent("onUpdateNotification", summary: "The outcome of updateNotification (100, or 110/153 then logoff, 121 when the step-up expired, or error 131)."),
                FlowEvent(
                    "onGetRegistredDeviceDetails",
                    summary: "The SDK's spelling. ResponseData {device[], deviceManagementCoolingPeriodEndTimestamp}, in the server-call envelope."),
                FlowEvent(
                    "onUpdateDeviceDetails",
                    summary: "The outcome of updateDeviceDetails: ResponseData {status_code, message, dev_uuid}; 146 with the cooling period's end; 116 refused; step-up's 110/153 then logoff."),
                FlowEvent("onNotificationReceived", summary: "Beyond the SDK: a new notification for the logged-in user arrived."),
                FlowEvent(
                    "getPassword", summary: "Step-up asks for the password again (challengeMode 3; 1000 for a flow that is not built in).",
                    challenge: true),
            ],
            services: [
                FlowService(
                    "stepup.authenticate", summary: "Re-authenticates the logged-in user (LDA, password, or LDA then password).",
                    params: [
                        FlowParam(
                            "challengeMode", .integer,
                            description: "The getPassword mode: the built-in caller's SDK mode (3, 5, 12, 15); 1000 from a flow that is not built in (the host refuses any other from one)."),
                        FlowParam("reason", .string),
                        FlowParam(
                            "method", .string, required: false,
                            description: "auto (default): the seed's table; password: the password when the user has one, else LDA; lda: LDA first, the password as fallback; serverBiometric: the client's platform/verifyServerBiometric alone."),
                    ])
            ],
            uses: [
                "stepup.authenticate", "notifications.list", "notifications.history", "notifications.check", "notifications.answer",
                "credentials.userState", "device.prove", "password.stepUp", "session.reauthenticate", "audit.record", "devices.list", "devices.update",
                "push.setToken",
            ],
            reads: ["notifications.created"])
    }
}
