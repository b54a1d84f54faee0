import CFlowHostABI
import FlowHostVocabulary
import FlowJSON
import JSONRPC

extension HostEngine {
    static var initializeSpec: MethodSpec {
        MethodSpec(
        name: "initialize", summary: "Opens the session: protocol version, client and device.",
        params: [
            ParamSpec(name: "protocolVersion", type: .string),
            ParamSpec(name: "clientInfo", type: .object),
            ParamSpec(name: "device", type: .object),
            ParamSpec(name: "processId", type: .integer, required: false),
        ])
    }

    func registerBuiltins() {
        methods["initialize"] = .builtin(Self.initializeSpec) { [unowned self] params throws(RPCError) in
            try initialize(params)
        }
        methods["shutdown"] = .builtin(MethodSpec(name: "shutdown", summary: "Ends the session; `exit` follows.")) {
            [unowned self] _ in
            lifecycle = .shutDown
            challenge.close()
            return nil
        }
        methods["rpc.discover"] = .builtin(
            MethodSpec(name: "rpc.discover", summary: "The OpenRPC document of every loaded method.")
        ) { [unowned self] _ in
            if discoverDocument == nil {
                let document = OpenRPCDocument.make(engine: self)
                if let problem = publishedContract?.apply(to: document) {
                    logger.warning("rpc.discover answers the declarations alone: \(problem)")
                }
                discoverDocument = document
            }
            return discoverDocument
        }
        methods["ping"] = .builtin(MethodSpec(name: "ping", summary: "Does nothing; answers {}.")) { [unowned self] _ in
            emptyObject
        }
        methods["exit"] = .builtin(MethodSpec(name: "exit", summary: "Notification: stop the process.")) { _ in nil }
        methods["extendSessionIdleTimeout"] = .builtin(
            MethodSpec(name: "extendSessionIdleTimeout", summary: "Restarts the idle lifetime of the session; onSessionExtensionResponse follows.")
        ) { [unowned self] _ throws(RPCError) in
            try extendSession()
            return nil
        }
    }

    private func initialize(_ params: JSON) throws(RPCError) -> JSON {
        guard lifecycle == .awaitingInitialize else {
            // The SDK's RDNA_ERR_RDNA_ALREADY_INITIALIZED.
            throw RPCError.sdk(longErrorCode: 88, shortErrorCode: 88, errorString: "already initialized")
        }
        let version = params["protocolVersion"]!.stringValue!
        guard Self.supportedProtocolVersions.contains(version) else {
            throw RPCError(.invalidParams, message: "Unsupported protocolVersion \(version)",
                data: [
                    "field": "protocolVersion",
                    "supported": .array(Self.supportedProtocolVersions.map(JSON.string)),
                ])
        }
        let clientInfo = params["clientInfo"]!
        for key in ["name", "version"] where clientInfo[key]?.kind != .string {
            throw RPCError.invalidParams(field: "clientInfo.\(key)", reason: "required string")
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
                throw RPCError.invalidParams(field: "processId", reason: "must be a positive process id")
            }
            clientProcessID = Int32(pid)
        }

        let stored = params.deepCopy()
        stored["device"] = device
        session = stored
        lifecycle = .running
        for plugin in plugins { plugin.start() }

        return [
            "protocolVersion": .string(version),
            "hostInfo": ["name": .string(options.hostName), "version": .string(options.hostVersion)],
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

    private static func checkDevice(_ device: JSON) throws(RPCError) {
        for key in device.keys where !["deviceID", "deviceName", "ldaCapabilities", "keyCustody"].contains(key) {
            throw RPCError.invalidParams(field: "device.\(key)", reason: "unknown field")
        }
        // A device id follows the user-id rule; a name is one short line:
        // both reach the audit, the operator's screen and other users' approval text.
        for (key, rule) in [("deviceID", UserIdentifier.problem(with:)), ("deviceName", DeviceName.problem(with:))] {
            if let value = device[key] {
                guard let text = value.stringValue else { throw RPCError.invalidParams(field: "device.\(key)", reason: "expected string") }
                if let problem = rule(text) { throw RPCError.invalidParams(field: "device.\(key)", reason: problem) }
            }
        }
        if let custody = device["keyCustody"], custody.stringValue != "host", custody.stringValue != "platform" {
            throw RPCError.invalidParams(field: "device.keyCustody", reason: "\"host\" (the default) or \"platform\"")
        }
        if let capabilities = device["ldaCapabilities"] {
            guard capabilities.kind == .array else {
                throw RPCError.invalidParams(field: "device.ldaCapabilities", reason: "expected array of RDNALDACapabilities")
            }
            for (index, element) in capabilities.elements.enumerated() {
                // RDNALDACapabilities: 1...10 (0 is RDNA_LDA_INVALID).
                guard let value = element.intValue, (1...10).contains(value) else {
                    throw RPCError.invalidParams(
                        field: "device.ldaCapabilities[\(index)]", reason: "expected an RDNALDACapabilities value 1...10")
                }
            }
        }
    }
}
