import FlowHostSDK
import FlowHostServiceTypes

/// The `terms` flow: a user accepts the terms of use, once per version.
///
///     terms.accept(userID, version)  -> the challenge getTermsConsent, unless
///                                       this version was accepted already
///     setTermsConsent(accepted)      -> onTermsAccepted or onTermsDeclined
///     terms.status(userID)           -> {accepted, version}
///     terms.withdraw()               -> the logged-in user takes it back:
///                                       getWithdrawalConsent, then a step-up
///     setWithdrawalConsent(confirmed) -> onTermsWithdrawn or onTermsKept
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
                FlowMethod(
                    "terms.withdraw", summary: "The logged-in user takes their acceptance back: getWithdrawalConsent, then a step-up.",
                    startsDialogue: true),
                FlowMethod(
                    "setWithdrawalConsent", summary: "The user's answer to getWithdrawalConsent.",
                    params: [FlowParam("confirmed", .boolean)], answers: ["getWithdrawalConsent"]),
            ],
            events: [
                FlowEvent("getTermsConsent", summary: "Show the terms; answer with setTermsConsent.", challenge: true),
                FlowEvent("onTermsAccepted", summary: "The user accepted this version; it is stored."),
                FlowEvent("onTermsDeclined", summary: "The user declined, or did not answer in time (reason: declined | expired)."),
                FlowEvent("getWithdrawalConsent", summary: "Confirm the withdrawal; answer with setWithdrawalConsent.", challenge: true),
                FlowEvent("onTermsWithdrawn", summary: "The acceptance is withdrawn."),
                FlowEvent(
                    "onTermsKept",
                    summary: "The acceptance stays (reason: declined | expired | notVerified, the step-up failed | changed, accepted anew meanwhile | failed)."),
            ],
            uses: ["records.get", "records.apply", "stepup.authenticate"])
    }

    static let collection = "accepted"

    let host: FlowHost
    /// The acceptance being asked for: set by terms.accept, ended by the answer or the challenge's expiry.
    var asking: (userID: String, version: String)?
    /// The withdrawal in progress (TermsFlow+Withdraw.swift).
    var withdrawing: Withdrawal?

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
        case "terms.withdraw":
            try withdraw()
            return nil
        case "setWithdrawalConsent":
            try withdrawalConfirmed(try params.requiredBool("confirmed"))
            return nil
        default:
            throw FlowHostError(.methodNotFound, message: "terms: no method \(method)")
        }
    }

    /// The host closed a challenge unanswered (`challengeTimeoutMs`), or a
    /// reset cancelled it.
    public func notified(topic: String, payload: JSON) {
        if payload["event"]?.stringValue == "getWithdrawalConsent" {
            return endWithdrawal(topic == "challenge.expired" ? "expired" : nil)
        }
        guard topic == "challenge.expired", let current = asking else { return }
        asking = nil
        host.emit("onTermsDeclined", ["userID": .string(current.userID), "reason": "expired"])
    }

    func accepted(_ userID: String) throws(FlowHostError) -> Services.RecordsGetOutcome? {
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
