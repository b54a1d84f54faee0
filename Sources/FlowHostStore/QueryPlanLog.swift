import CSQLite
import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A diagnostic for how the store's statements are served: with
/// FLOWHOST_SQL_PLAN_LOG=FILE, each statement a SQLite connection compiles
/// (once: they are cached) is appended to FILE with SQLite's query plan, as
/// `SQL\t<text>` then `PLAN\t<detail>` lines. Statement texts hold no values
/// (every value is bound), so nothing secret is written. The end-to-end
/// suite reads it to prove no per-login statement scans a table that grows
/// with history.
enum QueryPlanLog {
    static let path: String? = SystemEnvironment.value("FLOWHOST_SQL_PLAN_LOG").flatMap { $0.isEmpty ? nil : $0 }

    static func record(_ sql: String, plan: [String]) {
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let flat = sql.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }.joined(separator: " ")
        let text = "SQL\t\(flat)\n" + plan.map { "PLAN\t\($0)\n" }.joined()
        _ = text.withCString { write(fd, $0, strlen($0)) }
    }
}

extension Substring {
    fileprivate func trimmingPrefix(while predicate: (Character) -> Bool) -> Substring {
        guard let start = firstIndex(where: { !predicate($0) }) else { return self[endIndex...] }
        return self[start...]
    }
}
