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
            if let reason = names.conflict(of: plugin, installed: plugins) {
                refuse(PluginRefusal(path: plugin.path, reason: reason))
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
            names.add(plugin)
        }
        discoverDocument = nil
        for plugin in plugins {
            for used in plugin.manifest.uses.sorted() where names.services[used] == nil {
                logger.warning("flow \(plugin.name) uses service \(used), which nothing offers")
            }
        }
    }

    /// Records a refusal (from the loader or from `install`).
    public func refuse(_ refusal: PluginRefusal) {
        refusals.append(refusal)
        logger.error("\(refusal.description)")
    }

    /// At exit: the session ends, pending calls and requests are dropped,
    /// and every flow instance is released. Libraries stay loaded.
    public func destroyPlugins() {
        session.finish()
        cancelTimers()
        for plugin in plugins { plugin.destroy() }
    }

    /// Every callback the ABI took runs exactly once: timers still pending
    /// hear they were cancelled, before their flows are destroyed.
    func cancelTimers() {
        for timer in scheduler.removeTimers(where: { _ in true }) { withCall(timer.call) { timer.fire(false) } }
    }
}
