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
        guard sha256 != nil else { return }
        // A restart reloads the descriptor the host hashed (a file renamed
        // over the name is not seen); one written in place is seen here.
        flowhost_isolated_on_restart(
            isolation,
            { context, descriptor, why, size in
                guard let context, let why, size > 0 else { return 0 }
                let plugin = Unmanaged<LoadedPlugin>.fromOpaque(context).takeUnretainedValue()
                guard let problem = plugin.libraryChange(descriptor) else { return 0 }
                let bytes = Array(problem.utf8.prefix(size - 1))
                for (index, byte) in bytes.enumerated() { why[index] = CChar(bitPattern: byte) }
                why[bytes.count] = 0
                return -1
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Why the library open at `descriptor` is no longer the one hashed at
    /// the start, or nil when it still is.
    func libraryChange(_ descriptor: Int32) -> String? {
        guard let sha256 else { return nil }
        switch PluginDigest.sha256(ofDescriptor: descriptor, path: path) {
        case .failure(let refusal): return refusal.reason
        case .success(let digest):
            return digest == sha256 ? nil : "its library's SHA-256 is now \(digest), not the \(sha256) it was checked with at start"
        }
    }

    /// Stops the process of a flow that will not be installed.
    public func stopIsolation() {
        guard let isolation else { return }
        flowhost_isolated_close(isolation)
        self.isolation = nil
    }
}
