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

// Not `CommandLine.arguments` (ProcessArguments says why).
let arguments = Array(ProcessArguments.all.dropFirst())
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
