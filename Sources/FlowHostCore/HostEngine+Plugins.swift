import CFlowHostABI
import FlowJSON
import JSONRPC

extension HostEngine {
    /// Registers checked plugins and creates their instances, in order.
    ///
    /// A plugin whose flow name, a method name or a service name is already
    /// taken, or whose create call fails, is refused; the others still load.
    /// Answer methods may be declared by several flows if they agree on them.
    public func install(_ candidates: [LoadedPlugin], config: (String) -> JSON = { _ in .object() }) {
        for plugin in candidates {
            if let refusal = conflict(of: plugin) {
                refuse(refusal)
                continue
            }
            plugin.context = PluginContext(engine: self, plugin: plugin)
            do {
                try plugin.create(host: hostTable, config: config(plugin.name))
            } catch {
                refuse(PluginRefusal(path: plugin.path, reason: "create failed: \(error.message)"))
                continue
            }
            plugins.append(plugin)
            for method in plugin.manifest.methods where methods[method.name] == nil {
                methods[method.name] = method.answers.isEmpty ? .flow(plugin, method) : .answer(method)
            }
            for service in plugin.manifest.services {
                services[service.name] = .flow(plugin, service)
            }
        }
        discoverDocument = nil
        for plugin in plugins {
            for used in plugin.manifest.uses.sorted() where services[used] == nil {
                logger.warning("flow \(plugin.name) uses service \(used), which nothing offers")
            }
        }
    }

    /// Records a refusal (from the loader or from `install`).
    public func refuse(_ refusal: PluginRefusal) {
        refusals.append(refusal)
        logger.error("\(refusal.description)")
    }

    private func conflict(of plugin: LoadedPlugin) -> PluginRefusal? {
        func refusal(_ reason: String) -> PluginRefusal { PluginRefusal(path: plugin.path, reason: reason) }
        if FeedTopic.reservedNamespaces.contains(plugin.name) {
            return refusal("flow name \(plugin.name) is reserved for the host")
        }
        // JSON-RPC 2.0 reserves every method name that begins with "rpc.".
        let declared = plugin.manifest.methods.map(\.name) + plugin.manifest.events.map(\.name) + plugin.manifest.services.map(\.name)
        if let reserved = declared.first(where: { $0.hasPrefix("rpc.") }) {
            return refusal("\(reserved): names that begin with \"rpc.\" are reserved by JSON-RPC 2.0")
        }
        if let other = plugins.first(where: { $0.name == plugin.name }) {
            return refusal("flow name \(plugin.name) is already taken by \(other.path)")
        }
        for method in plugin.manifest.methods {
            guard let existing = methods[method.name] else { continue }
            if case .answer(let spec) = existing, spec.isCompatible(with: method) { continue }
            return refusal("method \(method.name) is already taken")
        }
        for service in plugin.manifest.services where services[service.name] != nil {
            return refusal("service \(service.name) is already taken")
        }
        return nil
    }

    /// At exit: the session ends, pending calls and requests are dropped,
    /// and every flow instance is released. Libraries stay loaded.
    public func destroyPlugins() {
        finishSession()
        cancelTimers()
        for plugin in plugins { plugin.destroy() }
    }

    /// Every callback the ABI took runs exactly once: timers still pending
    /// hear they were cancelled, before their flows are destroyed.
    func cancelTimers() {
        for timer in scheduler.removeTimers(where: { _ in true }) { withCall(timer.call) { timer.fire(false) } }
    }
}
