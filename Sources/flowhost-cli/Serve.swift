import ArgumentParser
import FlowHostLaunch

/// The protocol server: the default subcommand. `flowhost` serves a plain
/// serve command line without this parser; this one serves the rest (and
/// reports what is wrong with a command line `flowhost` handed over).
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve JSON-RPC 2.0 on stdin/stdout (the default).")

    @OptionGroup var host: HostOptions
    @OptionGroup var storage: StoreOptions

    @Option(help: "With a PostgreSQL store, the URL (without a password) of the server the change feed LISTENs on, when --store goes through a transaction pooler such as PgBouncer (default: FLOWHOST_FEED_STORE, else the config's store.feed, else --store).")
    var feedStore: String?

    @Option(help: "Largest frame in bytes (default 1 MiB).")
    var maxFrameBytes: Int?

    @Option(help: "Serve the peer of a Unix-domain socket connection (a socket unit with Accept=yes) only if it is root, this host's user or a member of this group; anything else, a pipe included, is refused with status 77.")
    var peerGroup: String?

    var arguments: ServeArguments {
        var arguments = ServeArguments()
        arguments.host = host.launch
        arguments.storage = storage.location
        arguments.storage.feedStore = feedStore
        arguments.maxFrameBytes = maxFrameBytes
        arguments.peerGroup = peerGroup
        return arguments
    }

    func run() throws {
        let status: Int32
        do { status = try ServeLauncher.run(arguments) } catch { status = try commandLine { throw error.error } }
        throw ExitCode(status)
    }
}
