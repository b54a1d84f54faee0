import FlowHostCore
import FlowHostCredentials
import FlowHostDelivery
import FlowHostDevices
import FlowHostPOSIX
import FlowHostServices
import FlowHostSessions
import FlowHostStore
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the store is, and the host's own files beside it (the outbox key,
/// the issuer key, the device keyring): for the host and the admin commands.
public struct StoreLocation: Equatable, Sendable {
    public var store: String?
    public var stateDir: String?
    public var deviceDir: String?
    /// With a PostgreSQL store, the server the change feed's LISTEN
    /// connection goes to when queries go through a transaction pooler,
    /// which cannot carry LISTEN (`--feed-store`; the serve command falls
    /// back to config `store.feed` when `feedURL` is nil).
    public var feedStore: String?

    public init(store: String? = nil, stateDir: String? = nil, deviceDir: String? = nil, feedStore: String? = nil) {
        self.store = store
        self.stateDir = stateDir
        self.deviceDir = deviceDir
        self.feedStore = feedStore
    }

    /// The keyring of host-custody device keys: 0700, each key file 0600.
    public func keyring() throws(LaunchError) -> DeviceKeyring {
        do { return try DeviceKeyring(folder: deviceFolder) } catch { throw .usage("\(error)") }
    }

    /// The keyring's folder: `--device-dir`, else `devices/` in the state
    /// folder (PostgreSQL) or beside the store file.
    public var deviceFolder: String {
        if let deviceDir { return deviceDir }
        if isPostgres { return localFolder + "/devices" }
        return path.folderPart.map { $0 + "/devices" } ?? "devices"
    }

    /// The host's own files that must be private (`PrivateFile`), whether
    /// or not each exists yet: the store's (SQLite), the outbox and issuer
    /// keys, the feed's wake-up file.
    public var privateFiles: [String] {
        if isPostgres { return [localFolder + "/outbox.key", localFolder + "/issuer.key"] }
        return [path, path + "-wal", path + "-shm", path + ".key", path + ".issuer.key", path + ".feed"]
    }

    /// The folder of the issuer's later keys (`issuer(store:)`).
    public var issuerKeyFolder: String {
        isPostgres ? localFolder + "/issuer-keys" : path + ".issuer-keys"
    }

    public var path: String {
        if let store { return store }
        if let environment = SystemEnvironment.value("FLOWHOST_STORE"), !environment.isEmpty { return environment }
        return SQLiteStore.defaultPath()
    }

    public var isPostgres: Bool { PostgresStore.isURL(path) }

    /// `--feed-store`, else `FLOWHOST_FEED_STORE`; nil when neither is set.
    public var feedURL: String? {
        if let feedStore { return feedStore }
        if let environment = SystemEnvironment.value("FLOWHOST_FEED_STORE"), !environment.isEmpty { return environment }
        return nil
    }

    /// Where a PostgreSQL store's host keeps its own files.
    public var localFolder: String {
        if let stateDir { return stateDir }
        if let environment = SystemEnvironment.value("FLOWHOST_STATE_DIR"), !environment.isEmpty { return environment }
        let sqlite = SQLiteStore.defaultPath()
        return sqlite.folderPart ?? sqlite
    }

    /// The store the location names: PostgreSQL for a URL, else a SQLite file.
    public func openStore() throws -> any FlowStore {
        if let scheme = PostgresStore.scheme(of: path), !isPostgres {
            throw LaunchError.usage("the store \(scheme)://… is a URL of a kind FlowHost does not know (postgresql:// is; anything else is a SQLite file path)")
        }
        guard isPostgres else { return try SQLiteStore(path: path, schema: HostSchema.migrator) }
        do { return try PostgresStore(url: path, schema: HostSchema.migrator) } catch { throw LaunchError.usage("\(error)") }
    }

    /// Opens the store and builds the domain services with the config's
    /// settings (parsed once by the caller, `HostSettings(validating:)`). With a
    /// delivery command, its worker starts when `deliver` is set (the host),
    /// and takes up what a stopped host left undelivered. With an events
    /// command, its worker starts at the host's first audit row when
    /// `deliver` is set (the host drains it before it exits); otherwise (an
    /// admin command) its events wait in the outbox until the command runs
    /// them (`AuditEventDelivery.runEnqueued`). With a push command, the
    /// same holds for the pushes of the notifications made (`PushDelivery`).
    public func domains(_ parsed: HostSettings, logger: Logger? = nil, deliver: Bool = false) throws -> HostDomains {
        try domainsRinging(parsed, logger: logger, deliver: deliver).domains
    }

    /// `domains`, with the change feed's wake-up they ring: the host listens
    /// on the same one (the feed file is opened once, after the store has
    /// made its folder).
    public func domainsRinging(
        _ parsed: HostSettings, logger: Logger? = nil, deliver: Bool = false
    ) throws -> (domains: HostDomains, feedWake: any FeedSignal) {
        let (settings, sessionSettings, deliverySettings) = (parsed.credentials, parsed.sessions, parsed.delivery)
        let store = try openStore()
        let delivery: any CodeDelivery
        if let command = deliverySettings.command {
            let commandDelivery = CommandDelivery(
                argv: command, outbox: try outbox(), store: store, settings: deliverySettings,
                logger: { [logger] line in logger?.error("\(line)") })
            if deliver { commandDelivery.start() }
            delivery = commandDelivery
        } else {
            delivery = try outbox()
        }
        var domains = HostDomains(store: store, credentials: settings, sessions: sessionSettings, delivery: delivery)
        if let command = parsed.events.command {
            domains.context.audit.events.sink = AuditEventDelivery(
                settings: parsed.events, argv: command, outbox: try outbox(), store: store, time: ISOTime.string, runsHere: deliver,
                logger: { [logger] line in logger?.error("\(line)") })
        }
        if let command = parsed.push.command {
            let push = PushDelivery(
                settings: parsed.push, argv: command, outbox: try outbox(), store: store, runsHere: deliver,
                tokenOf: { [sessionSettings] reader, userID, deviceID, notificationID in
                    try NotificationPushes.token(
                        reader, userID: userID, deviceID: deviceID, notificationID: notificationID, sessions: sessionSettings, at: Int64(time(nil)))
                },
                logger: { [logger] line in logger?.error("\(line)") })
            domains.push = NotificationPushes(push, sessions: sessionSettings, clock: domains.context.clock)
        }
        // An operator's block ends sessions through the feed: hosts learn at once.
        let wake = try feedWake(store: store, logger: logger)
        domains.context.ringFeed = { wake.ring() }
        return (domains, wake)
    }

    /// The change feed's wake-up: on PostgreSQL the machine's one listener
    /// (`FeedRelay`: the hosts sharing the state folder elect one to LISTEN
    /// on `feedURL` when set, else on the store's URL, and to read the feed
    /// for all of them through `store`); else a file beside the store.
    public func feedWake(store: any FlowStore, logger: Logger? = nil) throws -> any FeedSignal {
        let listenURL: String
        if let feedURL {
            guard isPostgres, PostgresStore.isURL(feedURL) else {
                throw LaunchError.usage("--feed-store (FLOWHOST_FEED_STORE, config store.feed) must be a postgresql:// URL, with a postgresql:// store")
            }
            listenURL = feedURL
        } else if isPostgres {
            listenURL = path
        } else {
            return try FeedWake(path: path + ".feed")
        }
        // Checked now (a password in the URL is refused at start); opened by the holder, on first use.
        do { _ = try PostgresFeedSignal(url: listenURL) } catch { throw LaunchError.usage("\(error)") }
        return FeedRelay(
            folder: localFolder, feed: path + "\n" + listenURL, serverWake: { try PostgresFeedSignal(url: listenURL) },
            read: { after, topics, limit in try store.readFeed(after: after, topics: topics, limit: limit) },
            noticeKeys: { try store.read { try $0.feedNoticeKeys() } },
            log: { logger?.warning("\($0)") })
    }

    /// The receipt issuer (`ReceiptIssuer`) on `store`: its first key beside
    /// the store file (`STORE.issuer.key`), later ones in `STORE.issuer-keys/`;
    /// with PostgreSQL, `issuer.key` and `issuer-keys/` in the state folder
    /// (every machine that signs needs the active key's file). Read on first use only.
    public func issuer(store: any FlowStore) throws -> ReceiptIssuer {
        if isPostgres {
            try PrivateFile.makeFolders(localFolder)
            return ReceiptIssuer(path: localFolder + "/issuer.key", folder: issuerKeyFolder, store: store)
        }
        return ReceiptIssuer(path: path + ".issuer.key", folder: issuerKeyFolder, store: store)
    }

    /// The outbox, sealed with a key kept beside the store file (with
    /// PostgreSQL, in the state folder: every machine that delivers codes
    /// needs the same key file).
    public func outbox() throws -> OutboxDelivery {
        if isPostgres {
            try PrivateFile.makeFolders(localFolder)
            return try OutboxDelivery(keyPath: localFolder + "/outbox.key")
        }
        return try OutboxDelivery(keyPath: path + ".key")
    }
}

extension HostSettings {
    /// The config's domain sections, or the error that names the bad key, as the command line reports it.
    public init(validating configuration: HostConfiguration) throws(LaunchError) {
        do { try self.init(configuration) } catch { throw .usage("\(error)") }
    }
}
