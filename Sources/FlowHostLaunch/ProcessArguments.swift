import CFlowHostSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's command line as `CommandLine.arguments` reads it (each C
/// string, repaired where it is not UTF-8), from the C runtime's argv
/// (`flowhost_process_argv`). Swift's `CommandLine` fills one-time
/// initialisers on a page of libswiftCore's data that would then stay in
/// every host (docs/performance.md, "The start path"); it is the fallback only when
/// the C runtime's initialiser did not run.
public enum ProcessArguments {
    /// Every argument, the program's name first.
    public static var all: [String] {
        guard flowhost_process_argc() > 0, let argv = flowhost_process_argv() else { return CommandLine.arguments }
        var arguments: [String] = []
        for index in 0..<Int(flowhost_process_argc()) { arguments.append(String(cString: argv[index]!)) }
        return arguments
    }

    /// argv[0] where it lies, for `realpath`.
    static var programName: UnsafeMutablePointer<CChar>? {
        flowhost_process_argc() > 0 ? flowhost_process_argv()?[0] : CommandLine.unsafeArgv[0]
    }
}
