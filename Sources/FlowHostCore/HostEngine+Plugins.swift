import CFlowHostABI
import FlowJSON
import JSONRPC

extension HostEngine {
    /// Registers checked plugins and creates their instances: the built-in
    /// flows first, then the others in the order found.
    ///
    /// A plugin whose flow name, a method name or a service name is already
    /// taken, or whose create call fails, is refused; the others still load.
    /// Answer methods may be declared by several flows if they agree on them;
    /// a built-in flow's names are its own (`NameTable.conflict`).
    public func install(_ candidates: [LoadedPlugin], config: (String) -> JSON = { _ in .object() }) {
        let ordered = candidates.filter { $0.origin == .builtIn } + candidates.filter { $0.origin != .builtIn }
        for plugin in ordered {
            if let reason = names.conflict(of: plugin, installed: plugins) {
                plugin.stopIsolation()
                refuse(PluginRefusal(path: plugin.path, reason: reason))
                continue
            }
            plugin.context = PluginContext(engine: self, plugin: plugin)
            plugin.watchIsolation()
            do {
                try plugin.create(host: hostTable, config: config(plugin.name))
            } catch {
                plugin.stopIsolation()
                refuse(PluginRefusal(path: plugin.path, reason: "create failed: \(error.message)"))
                continue
            }
            names.add(plugin)
            if let pid = plugin.isolatedProcessID {
                logger.info("flow \(plugin.name) runs in process \(pid), confined: \(plugin.confinement ?? "none")")
            }
        }
        discoverDocument = nil
        frameTrace?.forgetDeclaredSecrets()
    }

    /// A service a flow's `uses` names that neither the host nor any loaded
    /// flow offers: a typo, or a flow that is missing.
    public struct UnofferedService {
        public let flow: String
        public let service: String
        /// The offered name nearest to it, when it looks like a slip.
        public let nearest: String?

        public var description: String {
            "flow \(flow) uses service \(service), which nothing offers" + (nearest.map { "; did you mean \($0)?" } ?? "")
        }
    }

    /// Each name in a loaded flow's `uses` that nothing offers. `hostOffers`:
    /// the host's services, when they are not registered on this engine
    /// (`flowhost plugins` opens no store).
    public func unofferedServices(hostOffers: Set<String> = []) -> [UnofferedService] {
        let offered = Set(names.services.keys).union(hostOffers)
        return plugins.flatMap { plugin in
            plugin.manifest.uses.sorted().filter { !offered.contains($0) }.map {
                UnofferedService(flow: plugin.name, service: $0, nearest: NearestName.to($0, in: offered))
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
        session.end(reason: "host-exit")
        runDeferred()
        cancelTimers()
        for plugin in plugins { plugin.destroy() }
    }

    /// Every callback the ABI took runs exactly once: timers still pending
    /// hear they were cancelled, before their flows are destroyed.
    func cancelTimers() {
        for timer in scheduler.removeTimers(where: { _ in true }) { router.withCall(timer.call) { timer.fire(false) } }
    }
}

extension HostEngine {
    /// An isolated flow's process failed (the proxy killed it, and ended
    /// through the host table what it had started): one line for the
    /// operator, and its challenge closes, since no one is left to read the
    /// answer. The call in flight, if any, fails with `flowFailed`.
    func isolatedFlowFailed(_ plugin: LoadedPlugin, line: String) {
        logger.error("\(line)")
        router.challenge.close(ownedBy: plugin)
    }
}
