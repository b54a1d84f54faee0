import CFlowHostSystem
import FlowHostCore
import FlowHostLaunch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `flowhost`: the host a client spawns. It serves a plain serve command line
// itself and hands every other one (help, a subcommand, a mistake) to
// `flowhost-cli` beside it, so this executable links neither
// swift-argument-parser nor Foundation and starts quickly.

/// Replaces this process with `flowhost-cli`, with the same arguments.
func handOver(_ arguments: [String]) -> Never {
    let cli = (ExecutableLocation.directory() ?? ".") + "/flowhost-cli"
    let argv = ([cli] + arguments).map { strdup($0) } + [nil]
    execv(cli, argv)
    let reason = String(cString: strerror(errno))
    let message = "flowhost: this command line is for flowhost-cli, which should be beside flowhost: \(cli): \(reason)\n"
    _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(64)
}

// The arguments as `CommandLine.arguments` reads them (each C string,
// repaired where it is not UTF-8), from the C runtime's argv: Swift's
// CommandLine fills one-time initialisers on a page of libswiftCore's data
// that would then stay in every host (README, "The SQLite round"). A loop,
// not a closure: top-level code runs on the main actor, and a closure here
// would check its executor, which needs the concurrency runtime.
var arguments: [String] = []
var argumentIndex = 1
while argumentIndex < Int(flowhost_process_argc()) {
    arguments.append(String(cString: flowhost_process_argv()[argumentIndex]!))
    argumentIndex += 1
}
if flowhost_process_argc() == 0 { arguments = Array(CommandLine.arguments.dropFirst()) }
if arguments.first == "plugin-host" { exit(PluginHostCommand.run(Array(arguments.dropFirst()))) }
if arguments == ["--version"] {
    print(HostEngine.Options().hostVersion)
    exit(0)
}
guard let serve = ServeArguments.parse(arguments) else { handOver(arguments) }
do {
    exit(try ServeLauncher.run(serve))
} catch {
    if case let stop as LaunchError = error.error, case .exit(let status) = stop.kind { exit(status) }
    // Nothing was served: flowhost-cli starts again and reports the error in
    // its own words and format, on the real stdout.
    if error.framesDescriptor >= 0 { dup2(error.framesDescriptor, STDOUT_FILENO) }
    handOver(arguments)
}
