import CFlowHostIsolation

extension LoadedPlugin {
    /// Runs in a process of its own (`--isolate`).
    public var isIsolated: Bool { isolation != nil }

    /// How its process is confined ("no-new-privs, landlock, seccomp"), when isolated.
    public var confinement: String? { isolation.map { String(cString: flowhost_isolated_confinement($0)) } }

    /// The pid of its process while it runs (tests, `flowhost plugins`).
    public var isolatedProcessID: Int32? { isolation.map { flowhost_isolated_pid($0) } }

    /// Has the engine hear of its process's failures. The plugin lives as
    /// long as the process (plugins are never unloaded), so the unretained
    /// reference the callback holds stays valid.
    func watchIsolation() {
        guard let isolation else { return }
        flowhost_isolated_on_failure(
            isolation,
            { context, line in
                guard let context, let line else { return }
                let plugin = Unmanaged<LoadedPlugin>.fromOpaque(context).takeUnretainedValue()
                plugin.context?.engine.isolatedFlowFailed(plugin, line: String(cString: line))
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops the process of a flow that will not be installed.
    public func stopIsolation() {
        guard let isolation else { return }
        flowhost_isolated_close(isolation)
        self.isolation = nil
    }
}
