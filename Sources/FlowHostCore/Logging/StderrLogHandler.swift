import Logging

/// The host's log handler: one line per entry on stderr, written so that a
/// client that never drains stderr cannot stall the host, and so that
/// logged values cannot forge lines.
///
/// - A line is written only when the descriptor can take it at once (poll
///   for POLLOUT with no wait, then one write of at most `LogLine.maxBytes`,
///   which a pipe takes whole); otherwise it is dropped and counted, and the
///   count is reported with the next line that gets through.
/// - Each call site may write `burst` lines per `windowSeconds`; past that
///   its lines are counted and the count is reported when its window ends.
/// - Control characters in the message and the metadata are escaped.
public struct StderrLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    let label: String
    let sink: StderrSink

    public init(label: String, level: Logger.Level, sink: StderrSink) {
        self.label = label
        self.logLevel = level
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let context = merged.isEmpty ? "" : " " + merged.keys.sorted().map { "\($0)=\(merged[$0]!)" }.joined(separator: " ")
        let text = "\(event.level) \(label):\(context) \(event.message)"
        sink.write(text, site: "\(event.file):\(event.line)")
    }
}
