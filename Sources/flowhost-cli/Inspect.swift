import ArgumentParser
import FlowHostLaunch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `flowhost inspect`: checks the serve options with the serve command's
/// own parser, then becomes `flowhost-inspector` beside this executable,
/// which links the web server (and Foundation) that neither `flowhost`
/// nor `flowhost-cli` should carry.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive flows by hand in a browser: a local page, a host per device, every frame shown.",
        discussion: """
            Prints the page's address, on 127.0.0.1 with a random token (nothing is served \
            without it). Every option after the inspector's own is a serve option: each device \
            panel of the page runs `flowhost` with them, on the same store.
            """)

    @Option(help: "The port to listen on, on 127.0.0.1 (default: an ephemeral port).")
    var port: UInt16 = 0

    @Argument(parsing: .allUnrecognized, help: "Serve options (flowhost serve --help): --store, --plugins, --config, …")
    var serveOptions: [String] = []

    func validate() throws {
        guard ServeArguments.parse(serveOptions) == nil else { return }
        // Not a plain serve command line: the serve parser says what is wrong.
        do {
            _ = try Serve.parse(serveOptions)
        } catch {
            throw ValidationError(Serve.message(for: error))
        }
        throw ValidationError("these are not serve options: \(serveOptions.joined(separator: " "))")
    }

    func run() throws {
        let inspector = (ExecutableLocation.directory() ?? ".") + "/flowhost-inspector"
        let arguments = [inspector, "--port", String(port), "--"] + serveOptions
        let argv = arguments.map { strdup($0) } + [nil]
        execv(inspector, argv)
        let reason = String(cString: strerror(errno))
        throw ValidationError("flowhost-inspector should be beside flowhost-cli: \(inspector): \(reason)")
    }
}
