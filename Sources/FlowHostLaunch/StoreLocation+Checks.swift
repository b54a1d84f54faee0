import FlowHostPOSIX
import FlowHostServices
import FlowHostStore

extension StoreLocation {
    /// The store is reachable and has every migration this binary knows,
    /// and none it does not; read without migrating or creating anything.
    public func storeCheck() -> HealthCheck {
        let where_ = isPostgres ? "the PostgreSQL store" : path
        let state: SchemaState
        do {
            state = isPostgres ? try SchemaState.postgres(url: path, schema: HostSchema.migrator)
                : try SchemaState.sqlite(path: path, schema: HostSchema.migrator)
        } catch {
            return .failed("store", "\(error)")
        }
        if !state.unknown.isEmpty {
            return .failed("store", "\(where_) has migrations this binary does not know (a newer flowhost migrated it): \(state.unknown.joined(separator: ", "))")
        }
        if !state.pending.isEmpty {
            return .failed("store", "\(where_) lacks \(state.pending.count) migration(s), which the next host to start applies: \(state.pending.joined(separator: ", "))")
        }
        return HealthCheck("store", passed: true, "\(where_) is reachable and migrated")
    }

    /// The host's private files and folders are this user's alone: the
    /// checks a host makes as it opens each one, made for all at once.
    public func filesCheck() -> HealthCheck {
        var problems: [String] = []
        var folders = [deviceFolder]
        if isPostgres { folders.insert(localFolder, at: 0) }
        for folder in folders {
            if let problem = PrivateFile.folderProblem(at: folder) { problems.append(problem) }
        }
        var files = privateFiles
        for name in (SystemFolder.names(in: deviceFolder) ?? []).sorted() { files.append(deviceFolder + "/" + name) }
        for file in files {
            if let problem = PrivateFile.problem(at: file) { problems.append(problem) }
        }
        guard problems.isEmpty else { return .failed("files", problems.joined(separator: "; ")) }
        return HealthCheck("files", passed: true, "\(files.count + folders.count) files and folders checked; each is private to this user, or not made yet")
    }

    /// With PostgreSQL, the change feed's server takes a connection (it
    /// may be another URL than the store's, `--feed-store`); nil with SQLite.
    public func feedCheck(configured: String?) -> HealthCheck? {
        guard isPostgres else { return nil }
        let url = feedURL ?? configured ?? path
        do {
            try PostgresStore.probe(url: url)
        } catch {
            return .failed("feed", "the change feed's server: \(error)")
        }
        return HealthCheck("feed", passed: true, url == path ? "the store's server takes the feed's LISTEN connection" : "the feed's server takes its LISTEN connection")
    }
}
