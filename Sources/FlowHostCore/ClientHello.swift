import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// What a client says in `initialize`, checked: the protocol version it
/// speaks, who it is, and its device (completed with the host's defaults).
/// A value: the engine keeps it for the connection's life.
struct ClientHello {
    static let supportedProtocolVersions = ["1.1"]

    static var spec: MethodSpec {
        MethodSpec(
            name: "initialize", summary: "Opens the session: protocol version, client and device.",
            params: [
                ParamSpec(name: "protocolVersion", type: .string),
                ParamSpec(name: "clientInfo", type: .object),
                ParamSpec(name: "device", type: .object),
                ParamSpec(name: "processId", type: .integer, required: false),
                ParamSpec(name: "initOptions", type: .object, required: false),
            ])
    }

    let protocolVersion: String
    /// The params as given, with the completed device: what flows may read.
    let stored: JSON
    let processID: Int32?
    /// `initOptions.internationalizationOptions`, the SDK's way to set the
    /// language at `initialize` (spec §22, "Languages"), checked.
    let language: LanguageRequest?

    var device: JSON { stored["device"]! }

    /// `params` were bound to `spec` already: the required keys are there.
    init(_ params: JSON) throws(FlowHostError) {
        let version = params["protocolVersion"]!.stringValue!
        guard Self.supportedProtocolVersions.contains(version) else {
            throw FlowHostError(
                .invalidParams, message: "Unsupported protocolVersion \(version)",
                data: ["field": "protocolVersion", "supported": .array(Self.supportedProtocolVersions.map(JSON.string))])
        }
        let clientInfo = params["clientInfo"]!
        for key in ["name", "version"] where clientInfo[key]?.kind != .string {
            throw FlowHostError.invalidParams(field: "clientInfo.\(key)", reason: "required string")
        }
        let device = params["device"]!.deepCopy()
        try Self.checkDevice(device)
        if device["deviceID"] == nil {
            device["deviceID"] = .string(RandomHex.make(bytes: 16))  // 128 bits
        }
        if device["ldaCapabilities"] == nil { device["ldaCapabilities"] = .array() }
        if device["keyCustody"] == nil { device["keyCustody"] = "host" }
        if let pid = params["processId"]?.intValue {
            guard pid > 0, pid <= Int(Int32.max) else {
                throw FlowHostError.invalidParams(field: "processId", reason: "must be a positive process id")
            }
            processID = Int32(pid)
        } else {
            processID = nil
        }
        language = try Self.languageRequest(params["initOptions"])
        protocolVersion = version
        stored = params.deepCopy()
        stored["device"] = device
    }

    /// The facts flows may read (`session_info`).
    var infoForFlows: JSON {
        let info = JSON.object()
        info["device"] = stored["device"]
        info["clientInfo"] = stored["clientInfo"]
        return info
    }

    /// `initialize`'s answer: the host, the device's id, and the flows loaded.
    func reply(hostName: String, hostVersion: String, plugins: [LoadedPlugin]) -> JSON {
        [
            "protocolVersion": .string(protocolVersion),
            "hostInfo": ["name": .string(hostName), "version": .string(hostVersion)],
            "device": ["deviceID": device["deviceID"]!],
            "flows": .array(
                plugins.map { plugin in
                    [
                        "name": .string(plugin.name), "version": .string(plugin.version), "abiVersion": .int(plugin.abiVersion),
                        "methods": .array(plugin.manifest.methods.map { .string($0.name) }),
                        "events": .array(plugin.manifest.events.map { .string($0.name) }),
                    ]
                }),
        ]
    }

    /// The SDK's `initOptions`: `internationalizationOptions {localeCode,
    /// localeName, languageDirection}` is read (`localeName` is the app's
    /// label, not used); its other members (`permissionOptions`,
    /// `otelConfig`) mean nothing to a host and are ignored.
    private static func languageRequest(_ options: JSON?) throws(FlowHostError) -> LanguageRequest? {
        guard let options, let language = options["internationalizationOptions"] else { return nil }
        let field = "initOptions.internationalizationOptions"
        guard language.kind == .object else { throw FlowHostError.invalidParams(field: field, reason: "must be an object") }
        guard let code = language["localeCode"]?.stringValue else {
            throw FlowHostError.invalidParams(field: field + ".localeCode", reason: "required string")
        }
        guard let direction = language["languageDirection"], direction.kind == .integer else {
            throw FlowHostError.invalidParams(field: field + ".languageDirection", reason: "required integer")
        }
        do { return try LanguageRequest(localeCode: code, direction: direction.intValue!) } catch {
            throw FlowHostError.invalidParams(field: field + "." + (error.data?["field"]?.stringValue ?? "localeCode"), reason: error.data?["reason"]?.stringValue ?? error.message)
        }
    }

    private static func checkDevice(_ device: JSON) throws(FlowHostError) {
        for key in device.keys where !["deviceID", "deviceName", "ldaCapabilities", "keyCustody"].contains(key) {
            throw FlowHostError.invalidParams(field: "device.\(key)", reason: "unknown field")
        }
        // A device id follows the user-id rule; a name is one short line:
        // both reach the audit, the operator's screen and other users' approval text.
        for (key, rule) in [("deviceID", UserIdentifier.problem(with:)), ("deviceName", DeviceName.problem(with:))] {
            if let value = device[key] {
                guard let text = value.stringValue else { throw FlowHostError.invalidParams(field: "device.\(key)", reason: "expected string") }
                if let problem = rule(text) { throw FlowHostError.invalidParams(field: "device.\(key)", reason: problem) }
            }
        }
        if let custody = device["keyCustody"], !["host", "platform", "webauthn"].contains(custody.stringValue ?? "") {
            throw FlowHostError.invalidParams(field: "device.keyCustody", reason: "\"host\" (the default), \"platform\" or \"webauthn\"")
        }
        if let capabilities = device["ldaCapabilities"] {
            guard capabilities.kind == .array else {
                throw FlowHostError.invalidParams(field: "device.ldaCapabilities", reason: "expected array of RDNALDACapabilities")
            }
            for (index, element) in capabilities.elements.enumerated() {
                // RDNALDACapabilities: 1...10 (0 is RDNA_LDA_INVALID).
                guard let value = element.intValue, (1...10).contains(value) else {
                    throw FlowHostError.invalidParams(
                        field: "device.ldaCapabilities[\(index)]", reason: "expected an RDNALDACapabilities value 1...10")
                }
            }
        }
    }
}
