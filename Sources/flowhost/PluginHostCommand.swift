import CFlowHostIsolation

#if canImport(Glibc)
import Glibc
#endif

/// `flowhost plugin-host [--address-space BYTES] [--cpu-seconds N]
/// [--open-files N] -- LIBRARY`: the child process an isolated flow runs
/// in, started by the host (never by hand), its socket to the host on fd 3,
/// LIBRARY the descriptor the host checked (`/proc/self/fd/4`).
/// With `--names` and any number of libraries: the child that tells the
/// host which flow each declares, as one JSON array on stdout.
enum PluginHostCommand {
    static func run(_ arguments: [String]) -> Int32 {
        var limits = flowhost_isolation_limits()
        var rest = arguments[...]
        var names = false
        while let argument = rest.popFirst() {
            if argument == "--" { break }
            if argument == "--names" { names = true; continue }
            guard let value = rest.popFirst(), let number = UInt64(value) else { return usage() }
            switch argument {
            case "--address-space": limits.address_space_bytes = number
            case "--cpu-seconds": limits.cpu_seconds = UInt32(clamping: number)
            case "--open-files": limits.open_files = UInt32(clamping: number)
            default: return usage()
            }
        }
        if names {
            // The flow each library declares (`--isolate NAME` asks before it decides where a library runs).
            let libraries = rest.map { strdup($0) }
            defer { libraries.forEach { free($0) } }
            return libraries.map { UnsafePointer($0) }.withUnsafeBufferPointer {
                flowhost_plugin_names_main($0.baseAddress, $0.count, &limits)
            }
        }
        guard rest.count == 1, let library = rest.first else { return usage() }
        return flowhost_plugin_host_main(3, library, &limits)
    }

    private static func usage() -> Int32 {
        let message = "flowhost plugin-host: started by the host for an isolated flow (--isolate), not by hand\n"
        _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        return 64
    }
}
