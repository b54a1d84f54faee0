import ArgumentParser
import FlowHostCore
import FlowHostLaunch
import FlowHostServices
import FlowHostVocabulary
import FlowJSON
import JSONRPC

/// `flowhost admin check`: whether a host started with these options would
/// serve, for systemd's `ExecStartPre`, a Kubernetes probe or monitoring.
/// It changes nothing a host relies on: it migrates nothing, makes no
/// store, key or folder, and calls no flow.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the store, the private files, the flows and their pins; exit 1 when anything is wrong.",
        discussion: """
            One line per check (ok or FAIL, its name, what was found), or one JSON object with --json. \
            Takes the options `flowhost serve` takes for the store and the flows.
            """)

    @OptionGroup var host: HostOptions
    @OptionGroup var storage: StoreOptions

    @Option(help: "The change feed's server, when it is not the store's (as `flowhost serve --feed-store`).")
    var feedStore: String?

    @Flag(help: "Print one JSON object for machines.")
    var json = false

    func run() throws {
        let checks = try collect()
        let passed = checks.allSatisfy(\.passed)
        if json {
            let items: [JSON] = checks.map { ["name": .string($0.name), "ok": .bool($0.passed), "detail": .string($0.detail)] }
            print(JSON.object(["ok": .bool(passed), "checks": .array(items)]).serialized())
        } else {
            for check in checks {
                let line: TerminalText = "\(check.passed ? "ok  " : "FAIL") \(check.name): \(check.detail)"
                print(line.text)
            }
        }
        if !passed { throw ExitCode(1) }
    }

    private func collect() throws -> [HealthCheck] {
        var checks: [HealthCheck] = []
        let configuration: HostConfiguration
        do {
            configuration = try host.loadConfiguration()
            _ = try HostSettings.validated(configuration)
            checks.append(HealthCheck("config", passed: true, host.config.map { "\($0) is valid" } ?? "no config file: the defaults"))
        } catch {
            // Without a config nothing else is checked as the host would run.
            return [HealthCheck("config", passed: false, "\(error)")]
        }
        var location = storage.location
        location.feedStore = feedStore
        let store = location.storeCheck()
        checks.append(store)
        checks.append(location.filesCheck())
        if store.passed { checks.append(location.issuerCheck()) }
        if let feed = location.feedCheck(configured: configuration.feedStore) { checks.append(feed) }
        checks.append(contentsOf: try host.launch.flowChecks(configuration, logger: try host.makeLogger()))
        return checks
    }
}
