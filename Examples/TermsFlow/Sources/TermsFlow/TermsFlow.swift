import FlowHostSDK
import FlowHostServiceTypes

/// The `terms` flow: a user accepts the terms of use, once per version.
///
///     terms.accept(userID, version)  -> the challenge getTermsConsent, unless
///                                       this version was accepted already
///     setTermsConsent(accepted)      -> onTermsAccepted or onTermsDeclined
///     terms.status(userID)           -> {accepted, version}
///
/// What was accepted is kept with the host's `records.*` services, under
/// this flow's own namespace: the flow needs no table and no change to the host.
public final class TermsFlow: Flow {
    public static var declaration: FlowDeclaration {
        FlowDeclaration(
            name: "terms", version: "1.0.0",
            methods: [
                FlowMethod(
                    "terms.accept", summary: "Asks the user to accept this version of the terms (getTermsConsent), unless they have.",
                    params: [FlowParam("userID", .string, format: .userID), FlowParam("version", .string)], startsDialogue: true),
                FlowMethod(
                    "setTermsConsent", summary: "The user's answer to getTermsConsent.",
                    params: [FlowParam("accepted", .boolean)], answers: ["getTermsConsent"]),
                FlowMethod(
                    "terms.status", summary: "The version of the terms the user accepted last, if any.",
                    params: [FlowParam("userID", .string, format: .userID)],
                    resultSchema: #"{"type":"object","properties":{"accepted":{"type":"boolean"},"version":{"type":["string","null"]}},"required":["accepted","version"]}"#),
            ],
            events: [
                FlowEvent("getTermsConsent", summary: "Show the terms; answer with setTermsConsent.", challenge: true),
                FlowEvent("onTermsAccepted", summary: "The user accepted this version; it is stored."),
                FlowEvent("onTermsDeclined", summary: "The user declined, or did not answer in time (reason: declined | expired)."),
            ],
            uses: ["records.get", "records.apply"])
    }

    static let collection = "accepted"

    let host: FlowHost
    /// The acceptance being asked for: set by terms.accept, ended by the answer or the challenge's expiry.
    var asking: (userID: String, version: String)?

    public init(host: FlowHost, config: JSON) throws(FlowHostError) {
        self.host = host
    }

    public func handle(method: String, params: JSON) throws(FlowHostError) -> JSON? {
        switch method {
        case "terms.accept":
            let userID = try params.requiredString("userID")
            let version = try params.requiredString("version")
            if try accepted(userID)?.value["version"]?.stringValue == version {
                return ["accepted": true, "already": true]
            }
            asking = (userID, version)
            host.emit("getTermsConsent", ["userID": .string(userID), "version": .string(version)])
            return nil
        case "setTermsConsent":
            guard let current = asking else { throw FlowHostError(.notAllowedNow, message: "no terms are being asked for") }
            asking = nil
            guard try params.requiredBool("accepted") else {
                host.emit("onTermsDeclined", ["userID": .string(current.userID), "reason": "declined"])
                return nil
            }
            try store(current.userID, version: current.version)
            host.emit("onTermsAccepted", ["userID": .string(current.userID), "version": .string(current.version)])
            return nil
        case "terms.status":
            let record = try accepted(try params.requiredString("userID"))
            return ["accepted": .bool(record != nil), "version": record?.value["version"] ?? .null]
        default:
            throw FlowHostError(.methodNotFound, message: "terms: no method \(method)")
        }
    }

    /// The host closed the challenge unanswered (`challengeTimeoutMs`).
    public func notified(topic: String, payload: JSON) {
        guard topic == "challenge.expired", let current = asking else { return }
        asking = nil
        host.emit("onTermsDeclined", ["userID": .string(current.userID), "reason": "expired"])
    }

    private func accepted(_ userID: String) throws(FlowHostError) -> Services.RecordsGetOutcome? {
        try host.call(Services.RecordsGet(collection: Self.collection, key: userID))
    }

    /// One put, whatever was stored before (a newer version replaces an older).
    private func store(_ userID: String, version: String) throws(FlowHostError) {
        let put: JSON = [
            "op": "put", "collection": .string(Self.collection), "key": .string(userID),
            "value": ["version": .string(version)],
        ]
        _ = try host.call(Services.RecordsApply(operations: [put]))
    }
}

/// The library's one C entry point: the host finds the flow through it.
@_cdecl("flowhost_plugin_v1")
public func flowhostPluginV1() -> UnsafeRawPointer { FlowExport.descriptor(for: TermsFlow.self) }
