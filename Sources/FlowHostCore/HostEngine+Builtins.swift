import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// The methods the host answers itself.
extension HostEngine {
    func registerBuiltins() {
        names.addBuiltin(ClientHello.spec) { [unowned self] params throws(FlowHostError) in
            guard lifecycle == .awaitingInitialize else {
                // The SDK's RDNA_ERR_RDNA_ALREADY_INITIALIZED.
                throw FlowHostError.sdk(SDKCode.alreadyInitialized, "already initialized")
            }
            let hello = try ClientHello(params)
            client.hello = hello
            clientProcessID = hello.processID
            // Before the flows start: their first events are in the language asked for.
            let outcome = hello.language.map { language.set($0, logger: logger) }
            lifecycle = .running
            for plugin in plugins { plugin.start() }
            let reply = hello.reply(hostName: options.hostName, hostVersion: options.hostVersion, plugins: plugins)
            if let outcome { reply["language"] = ["localeCode": .string(outcome.localeCode), "isFallback": .bool(outcome.fellBack)] }
            return reply
        }
        names.addBuiltin(MethodSpec(name: "shutdown", summary: "Ends the session; `exit` follows.")) { [unowned self] _ in
            lifecycle = .shutDown
            router.challenge.close()
            return nil
        }
        names.addBuiltin(MethodSpec(name: "rpc.discover", summary: "The OpenRPC document of every loaded method.")) { [unowned self] _ in
            if discoverDocument == nil {
                let document = OpenRPCDocument.make(names: names, options: options)
                if let problem = publishedContract?.apply(to: document) {
                    logger.warning("rpc.discover answers the declarations alone: \(problem)")
                }
                discoverDocument = document
            }
            return discoverDocument
        }
        names.addBuiltin(MethodSpec(name: "ping", summary: "Does nothing; answers {}.")) { [unowned self] _ in emptyObject }
        names.addBuiltin(MethodSpec(name: "exit", summary: "Notification: stop the process.")) { _ in nil }
    }
}
