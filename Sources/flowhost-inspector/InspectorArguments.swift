/// `flowhost-inspector [--port N] [--flowhost PATH] [--] [SERVE OPTION…]`:
/// what `flowhost inspect` hands over once its own parser has checked the
/// serve options. Each device panel's host is `flowhost SERVE OPTION…`.
struct InspectorArguments: Equatable {
    /// 0: an ephemeral port, chosen by the kernel.
    var port: UInt16 = 0
    /// The host executable; nil: `flowhost` beside this executable.
    var flowhost: String?
    var serveOptions: [String] = []

    static let usage = "usage: flowhost inspect [--port N] [SERVE OPTION…]   (flowhost inspect --help)"

    static func parse(_ arguments: [String]) throws(InspectorError) -> InspectorArguments {
        var parsed = InspectorArguments()
        var rest = arguments[...]
        while let argument = rest.first {
            if argument == "--" { rest = rest.dropFirst(); break }
            guard argument == "--port" || argument == "--flowhost" else { break }
            rest = rest.dropFirst()
            guard let value = rest.popFirst() else { throw InspectorError.usage("\(argument) needs a value") }
            if argument == "--port" {
                guard let port = UInt16(value) else { throw InspectorError.usage("--port takes 0 to 65535, not '\(value)'") }
                parsed.port = port
            } else {
                parsed.flowhost = value
            }
        }
        parsed.serveOptions = Array(rest)
        return parsed
    }
}
