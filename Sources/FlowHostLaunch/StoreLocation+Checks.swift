import FlowHostDevices
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
        var folders = [deviceFolder, issuerKeyFolder]
        if isPostgres { folders.insert(localFolder, at: 0) }
        for folder in folders {
            if let problem = PrivateFile.folderProblem(at: folder) { problems.append(problem) }
        }
        var files = privateFiles
        for folder in [deviceFolder, issuerKeyFolder] {
            for name in (SystemFolder.names(in: folder) ?? []).sorted() { files.append(folder + "/" + name) }
        }
        for file in files {
            if let problem = PrivateFile.problem(at: file) { problems.append(problem) }
        }
        guard problems.isEmpty else { return .failed("files", problems.joined(separator: "; ")) }
        return HealthCheck("files", passed: true, "\(files.count + folders.count) files and folders checked; each is private to this user, or not made yet")
    }

    /// This machine holds the issuer's active key and the staged one, each
    /// matching its public half in the store: what it needs to sign now and
    /// after the next activation. Run only on a store that passed `storeCheck`.
    public func issuerCheck() -> HealthCheck {
        do {
            let store = try openStore()
            let issuer = try issuer(store: store)
            let keys = try store.read { try $0.issuerKeys() }
            guard !keys.isEmpty else { return HealthCheck("issuer", passed: true, "no key yet: the first host to sign makes \(issuer.path)") }
            let problems = try issuer.localProblems()
            guard problems.isEmpty else { return .failed("issuer", problems.joined(separator: "; ")) }
            let active = keys.first { $0.state == .active }?.keyID ?? "none"
            let staged = keys.first { $0.state == .staged }.map { ", and the staged key \($0.keyID)" } ?? ""
            return HealthCheck("issuer", passed: true, "this machine holds the active key \(active)\(staged)")
        } catch {
            return .failed("issuer", "\(error)")
        }
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
