import Foundation

// `flowhost-inspector`: the server behind `flowhost inspect`. It prints the
// page's address on stdout and serves until it is stopped; each device
// panel of the page runs a host of its own (`flowhost SERVE OPTION…`).

/// A write to a host that has ended must fail, not kill the inspector.
signal(SIGPIPE, SIG_IGN)

func fail(_ error: InspectorError) -> Never {
    // The description may quote an option or the host's own lines: escaped.
    InspectorLog.writeFailure(error.description)
    if error.kind == .usage { FileHandle.standardError.write(Data("\(InspectorArguments.usage)\n".utf8)) }
    exit(error.kind == .usage ? 64 : 1)
}

do {
    let arguments = try InspectorArguments.parse(Array(CommandLine.arguments.dropFirst()))
    let flowhost = arguments.flowhost ?? Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("flowhost").path
    let server = InspectorServer(arguments: arguments, flowhost: flowhost, page: try InspectorPage())
    try await server.run { address in
        // Written at once, not buffered: whoever started the inspector waits for this line.
        FileHandle.standardOutput.write(Data("""
            FlowHost Inspector: \(address)
            (only this address, with its token, is served; Ctrl-C stops the inspector and its hosts)

            """.utf8))
    }
} catch let error as InspectorError {
    fail(error)
} catch {
    fail(InspectorError(kind: .hostRefused, description: "\(error)"))
}
