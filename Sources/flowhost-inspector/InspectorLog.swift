import Foundation
import FlowHostCore
import FlyingSocks
import Logging

/// Everything the inspector writes to stderr goes through the host's log
/// handler: a request from anyone who can reach 127.0.0.1 ends up in these
/// lines (a header FlyingFox could not read, a path), and the operator's
/// terminal must not run what it carries. Control characters are escaped,
/// a line is clipped, a full stderr drops lines instead of stalling the
/// server, and a flood from one call site is counted, not written.
enum InspectorLog {
    static let logger = Logger(label: "flowhost-inspector") { label in
        StderrLogHandler(label: label, level: .info, sink: StderrSink())
    }

    /// The reason the inspector cannot start, one escaped line per line,
    /// written at once (the process ends right after).
    static func writeFailure(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let escaped = LogLine.escaped(String(line))
            FileHandle.standardError.write(Data("flowhost inspect: \(escaped)\n".utf8))
        }
    }
}

/// FlyingFox's own log lines (errors and warnings), through `InspectorLog`.
struct FlyingFoxLog: FlyingSocks.Logging {
    func logDebug(_ debug: @autoclosure () -> String) {}
    func logInfo(_ info: @autoclosure () -> String) {}
    func logWarning(_ warning: @autoclosure () -> String) { InspectorLog.logger.warning("\(warning())") }
    func logError(_ error: @autoclosure () -> String) { InspectorLog.logger.error("\(error())") }
    func logCritical(_ critical: @autoclosure () -> String) { InspectorLog.logger.critical("\(critical())") }
}
