import FlowHostSDK

extension DataSigningFlow {
    static var declaration: FlowDeclaration {
        FlowDeclaration(
            name: "data-signing", version: "1.1.0",
            methods: [
                FlowMethod(
                    "authenticateUserAndSignData",
                    summary: "Signs payload and reason with the device's key after the authentication the level asks for; onAuthenticateUserAndSignData follows.",
                    params: [
                        FlowParam("payload", .string, description: "1 to 500 characters (Unicode scalars)."),
                        FlowParam("authLevel", .integer, description: "RDNAAuthLevel: 0, 1 or 4."),
                        FlowParam("authenticatorType", .integer, description: "RDNAAuthenticatorType: 0 (with levels 0 and 1) or 1 (with level 4)."),
                        FlowParam("reason", .string, description: "1 to 100 characters (Unicode scalars)."),
                    ], startsDialogue: true),
                FlowMethod("resetAuthenticateUserAndSignDataState", summary: "Cancels a signing in progress (nothing is signed); harmless otherwise."),
                FlowMethod(
                    "verifyDataSignature",
                    summary: "Beyond the SDK: whether a signature holds, by dataSignatureID or for a full receipt; answered in the result.",
                    params: [FlowParam("dataSignatureID", .string, required: false), FlowParam("receipt", .object, required: false)],
                    resultSchema: #"{"type":"object","required":["valid","reason"],"properties":{"valid":{"type":"boolean"},"reason":{"enum":["valid","unknown","tampered","revoked","malformed"]},"fields":{"type":"array"},"receipt":{"type":"object"}}}"#),
            ],
            events: [
                FlowEvent(
                    "onAuthenticateUserAndSignData",
                    summary: "The signing's outcome: dataPayload, dataPayloadLength, reason, payloadSignature, dataSignatureID, authLevel, authenticatorType (the type used), verifiedBy (what was verified), status, error (and the receipt).")
            ],
            uses: ["stepup.authenticate", "signatures.sign", "signatures.verify"])
    }
}
