import CFlowHostIsolation
import FlowHostPOSIX
import Logging

/// What isolated flows write to their stdout and stderr, in the host's log:
/// one `notice` line per line they wrote, through the logger, which escapes
/// control characters and limits how many lines get through (spec §8).
enum IsolatedFlowOutput {
    /// Set once, before the first child starts (a static's initialiser runs once, on first use).
    static let relayed: Void = {
        flowhost_isolation_on_output { who, line, length, cut in
            guard let who, let line else { return }
            let bytes = UnsafeRawBufferPointer(start: line, count: length).assumingMemoryBound(to: UInt8.self)
            // Escaped here too: a process that never set up the host's log
            // handler would write through one that escapes nothing.
            let text = LogLine.escaped(String(utf8: bytes)) + (cut != 0 ? "…(cut)" : "")
            let name = LogLine.escaped(String(cString: who))
            // Called on the relay's thread: a Logger is Sendable, and the stderr sink locks.
            Logger(label: "flowhost").notice("flow \(name) wrote: \(text)")
        }
    }()
}
